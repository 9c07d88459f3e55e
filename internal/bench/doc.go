// Package bench holds Prism's measuring harnesses, such as the gonum baseline `prism bench` sets beside the engines.
package bench
