// Package csdk gives the C/C++ guest SDK's headers to the generator
// (guest-sdk/internal/gen): the table that dlsym looks the SDK's own
// functions up in lists the functions of the hand-written headers as well
// as the imports of the ABI table.
package csdk

import "embed"

// Headers holds include/acl: the generated headers and the hand-written ones.
//
//go:embed include/acl
var Headers embed.FS
