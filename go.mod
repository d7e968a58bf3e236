module github.com/aclwasm/aclwasm

go 1.26
