// Package archtest enforces the rules of docs/architecture.md that a
// reviewer would otherwise count by hand (its test, TestArchitecture, is
// all there is here):
//
//   - size: no package under app/ passes 2,500 non-test lines, and ui
//     stays under 3,000 (lines as `wc -l` counts them, over the package
//     directory's non-test .go files);
//   - functions: no function of a non-test file passes 80 lines (from
//     its `func` to its closing brace), except table data: a function
//     whose outermost composite literals (the tables it returns or
//     builds) span more than half its lines;
//   - imports: ui/view and ui/panel never import ui; nothing under app/
//     imports Fyne; the leaves (app/dsp, app/plot, app/encode, window, and
//     the packages under them) import no other app/ package.
//
// It parses the sources with go/parser (no build, no type check), so it
// runs in well under a second. Tests are exempt from the function rule
// (their scenarios read top to bottom), not from the import rules.
package archtest
