//go:build tools

// Package tools pins the FerretDB server binary that scripts/infra builds
// (go install pkg@version is not usable: it needs the module's @v/list).
package tools

import _ "github.com/FerretDB/FerretDB/cmd/ferretdb"
