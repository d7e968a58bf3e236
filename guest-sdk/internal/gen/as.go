package gen

func genAS(m *model, out map[string][]byte) error { return nil }
