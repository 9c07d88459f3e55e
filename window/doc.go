// Package window is the window function of Prism's frames: Func (a kind
// and Kaiser's β), its samples (Values, scipy's periodic definitions),
// its name (String, Parse, Names). It is a leaf that every layer may
// import — the engines (gpufft), the pipelines, the session and the
// window on screen hold the same typed value, and only settings files and
// flags hold its name.
package window
