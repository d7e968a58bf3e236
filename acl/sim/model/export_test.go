package model

// SetExecHook makes every execution call f first (nil: nothing).
func SetExecHook(f func()) { execHook = f }
