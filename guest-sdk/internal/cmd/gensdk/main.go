// Command gensdk regenerates the guest SDKs' binding layers from the ABI
// table (package abi) and the native codes and enums (package acl). Run it
// from the guest-sdk directory, as `go generate` does:
//
//	go generate ./guest-sdk
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aclwasm/aclwasm/guest-sdk/internal/gen"
)

func main() {
	files, err := gen.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, p := range gen.Paths(files) {
		path := filepath.FromSlash(p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		old, _ := os.ReadFile(path)
		if string(old) == string(files[p]) {
			continue
		}
		if err := os.WriteFile(path, files[p], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("gensdk: wrote", p)
	}
}
