module github.com/prismaudio/prism

go 1.26.8

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
