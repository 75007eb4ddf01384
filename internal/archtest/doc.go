// Package archtest enforces the architecture of DESIGN.md §2 and §1.7 as a
// test: the import table (which packages of the module may import what),
// the rule that core keeps no global state (no init functions, no mutable
// package-level variables), the shared vocabulary of options
// (docs/architecture.md, "The shared vocabulary"), and the rule that no
// word-scan or fast-path code sits outside the internal packages chosen for
// it (CheckCraft, DESIGN.md §1.11).
//
// The rules are plain functions over data (CheckImports over a package list
// as `go list -json` prints it, CheckGlobalState and CheckVocabulary over
// parsed files), so their own tests feed them synthetic packages that break
// each rule. The test of
// the real tree runs `go list -e -json ./...` from the module root.
//
// The table lives in one map, Table, mirrored in docs/architecture.md.
package archtest
