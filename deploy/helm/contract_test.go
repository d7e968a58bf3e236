package helm

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/aclwasm/aclwasm/deploy/image"
	"github.com/aclwasm/aclwasm/deploy/internal/podtest"
)

// The contract tests: the chart's pods start. Each values file (the
// defaults, testdata's, and every values file docs/DEPLOY.md shows) is
// rendered, and its container's command, args, environment and mounts
// run the real CLI from the image's own filesystem (package podtest):
// the volumes' files are the rendered ConfigMaps and Secrets (or the
// existing Secrets below), the node's hostPaths a directory holding the
// stand-in libascendcl.so. The kubelet's probes must answer 200, the
// plugin list must show every plugin of the ConfigMap with its manifest
// accepted by the server, one plugin call must go through the backend,
// Prometheus must scrape /metrics as the ServiceMonitor says, and
// SIGTERM must end the server cleanly. registry.example.com, where the
// values' OCI plugins come from, is a registry of the test's behind an
// HTTPS proxy (fakeRegistry) holding the plugin under each source.

// repoRoot is the main module's root, from this package's directory.
const repoRoot = "../.."

// contractPlugin is the plugin the test adds to every values file
// (plugins.wasm), and calls.
const contractPlugin = "contract"

// Tokens the test holds: its own (a rule it adds to values with access
// rules), and those of the existing Secrets the values files name.
const (
	testToken = "contract-test-token-0123456789abcdef"
	// metricsToken is the token of the docs' example Secret
	// aclwasm-metrics: fleet.yaml's metrics rule holds its hash.
	metricsToken = "example-metrics-token-replace-with-openssl-rand-hex-32"
	adminToken   = "contract-admin-token-0123456789abcdef"
)

// hashToken is the form an access rule stores (aclwasm serve hash-token).
func hashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return "sha256:" + hex.EncodeToString(h[:])
}

// pki is the test's CA, the server's certificate (127.0.0.1, localhost)
// and client certificates by common name, PEM-encoded.
type pki struct {
	ca      *x509.Certificate
	caKey   *ecdsa.PrivateKey
	caPEM   []byte
	certPEM []byte // the server's
	keyPEM  []byte
	clients map[string]tls.Certificate
	pems    map[string][2][]byte // client cert and key PEM by CN
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	p := &pki{clients: map[string]tls.Certificate{}, pems: map[string][2][]byte{}}
	var err error
	p.caKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "contract CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &p.caKey.PublicKey, p.caKey)
	require.NoError(t, err)
	p.ca, err = x509.ParseCertificate(der)
	require.NoError(t, err)
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	p.certPEM, p.keyPEM = p.issue(t, 2, "aclwasm", true)
	for i, cn := range []string{"contract-test", "prometheus"} {
		c, k := p.issue(t, int64(3+i), cn, false)
		pair, err := tls.X509KeyPair(c, k)
		require.NoError(t, err)
		p.clients[cn], p.pems[cn] = pair, [2][]byte{c, k}
	}
	return p
}

// issue returns a certificate the CA signed and its key, PEM-encoded.
func (p *pki) issue(t testing.TB, serial int64, cn string, server bool) ([]byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		// The Service's name, as a cert-manager Certificate of the docs has it.
		tmpl.DNSNames = []string{"localhost", release + "-aclwasm." + namespace + ".svc"}
		if strings.Contains(cn, ".") { // a host name: the registry's
			tmpl.DNSNames = append(tmpl.DNSNames, cn)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	require.NoError(t, err)
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// contractEnv is what every contract run shares: the image built from the
// real CLI and extracted, the stand-in library, the plugin, the PKI.
var contractEnv struct {
	once    sync.Once
	dir     string // removed by TestMain
	cli     string
	img     podtest.Image
	standIn string
	plugin  []byte
	pki     *pki
}

func sharedEnv(t *testing.T) {
	t.Helper()
	contractEnv.once.Do(func() {
		bin, err := podtest.BuildCLI(repoRoot, contractEnv.dir)
		require.NoError(t, err)
		contractEnv.cli = bin
		contractEnv.img = podtest.BuildImage(t, bin, filepath.Join(contractEnv.dir, "rootfs"))
		contractEnv.standIn = podtest.StandIn(t, repoRoot, contractEnv.dir)
		contractEnv.plugin = podtest.Plugin(t)
		p := newPKI(t)
		// The image's CA bundle trusts the test's CA, as it trusts the
		// public CA of a real registry.example.com.
		bundle, err := os.OpenFile(filepath.Join(contractEnv.img.Root, image.CACertsPath), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = bundle.Write(p.caPEM)
		require.NoError(t, err)
		require.NoError(t, bundle.Close())
		contractEnv.pki = p
	})
	require.NotNil(t, contractEnv.pki, "the shared contract environment failed to build (see the first test)")
}

// existingSecrets are the Secrets the values files name without the chart
// rendering them, as an operator (or cert-manager) creates them.
func existingSecrets(p *pki) map[string]map[string][]byte {
	return map[string]map[string][]byte{
		"aclwasm-cert":              {"tls.crt": p.certPEM, "tls.key": p.keyPEM, "ca.crt": p.caPEM},
		"aclwasm-admin":             {"token": []byte(adminToken)},
		"aclwasm-metrics":           {"token": []byte(metricsToken)},
		"aclwasm-prometheus-client": {"tls.crt": p.pems["prometheus"][0], "tls.key": p.pems["prometheus"][1], "ca.crt": p.caPEM},
	}
}

// docValues returns the values files docs/DEPLOY.md shows: every ```yaml
// block, named by its first line, a comment "# NAME.yaml".
func docValues(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "DEPLOY.md"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, m := range regexp.MustCompile("(?ms)^```yaml\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		first, _, _ := strings.Cut(m[1], "\n")
		name, ok := strings.CutPrefix(first, "# ")
		require.True(t, ok && strings.HasSuffix(name, ".yaml"), "docs/DEPLOY.md: a yaml block that does not start with '# NAME.yaml': %q", first)
		require.NotContains(t, out, name, "docs/DEPLOY.md: two blocks named %s", name)
		out[name] = m[1]
	}
	require.NotEmpty(t, out, "docs/DEPLOY.md shows no values file")
	return out
}

// contractValues is vals as the test runs it: the contract plugin added
// to plugins.wasm (every small module of the values replaced by it, so
// that their manifests load a real module), inline TLS PEMs replaced by
// the test's (valid for 127.0.0.1), and, with access rules, a rule for
// the test's token and client certificate that grants the contract
// plugin and the plugin list (never metrics: the values' own rules must
// grant Prometheus that).
func contractValues(t *testing.T, vals map[string]any, p *pki) map[string]any {
	t.Helper()
	var doc map[string]any
	b, err := json.Marshal(vals)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc)) // a deep copy
	section := func(k string) map[string]any {
		m, ok := doc[k].(map[string]any)
		if !ok {
			m = map[string]any{}
			doc[k] = m
		}
		return m
	}
	plugins := section("plugins")
	wasm, _ := plugins["wasm"].(map[string]any)
	if wasm == nil {
		wasm = map[string]any{}
	}
	enc := base64.StdEncoding.EncodeToString(contractEnv.plugin)
	for k := range wasm {
		wasm[k] = enc
	}
	wasm[contractPlugin] = enc
	plugins["wasm"] = wasm
	tlsv := section("tls")
	if tlsv["cert"] != nil && tlsv["cert"] != "" {
		tlsv["cert"], tlsv["key"] = string(p.certPEM), string(p.keyPEM)
		if tlsv["ca"] != nil && tlsv["ca"] != "" {
			tlsv["ca"] = string(p.caPEM)
		}
	}
	if cfg, ok := doc["config"].(map[string]any); ok {
		if rules, ok := cfg["access"].([]any); ok {
			cfg["access"] = append(rules, map[string]any{
				"name": "contract-test", "tokens": []any{hashToken(testToken)}, "subjects": []any{"CN=contract-test"},
				"plugins": []any{contractPlugin}, "admin": []any{"list"},
			})
		}
	}
	return doc
}

// volumes writes each mount's files under dir as the kubelet would and
// returns the mount paths' directories. The node's hostPaths are under
// dir/node, which holds the stand-in libascendcl.so where the CANN
// toolkit keeps it.
func volumes(t *testing.T, o objects, dir string, secrets map[string]map[string][]byte) map[string]string {
	t.Helper()
	node := filepath.Join(dir, "node")
	lib := filepath.Join(node, "usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so")
	require.NoError(t, os.MkdirAll(filepath.Dir(lib), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(node, "usr/local/Ascend/driver/lib64"), 0o755))
	data, err := os.ReadFile(contractEnv.standIn)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(lib, data, 0o755))

	pod := o.daemonSet.Spec.Template.Spec
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	mounts := map[string]string{}
	for _, m := range container(t, o).VolumeMounts {
		require.Empty(t, m.SubPath, "mount %s: subPath is not modelled", m.Name)
		v := vols[m.Name]
		d := filepath.Join(dir, "volumes", v.Name)
		files := map[string][]byte{}
		switch {
		case v.ConfigMap != nil:
			cm := o.configMaps[v.ConfigMap.Name]
			require.NotNil(t, cm, "ConfigMap %s", v.ConfigMap.Name)
			for k, s := range cm.Data {
				files[k] = []byte(s)
			}
			for k, b := range cm.BinaryData {
				files[k] = b
			}
		case v.Secret != nil:
			files = secretData(t, o, secrets, v.Secret.SecretName)
		case v.EmptyDir != nil:
		case v.HostPath != nil:
			d = filepath.Join(node, v.HostPath.Path)
			require.DirExists(t, d, "hostPath %s (type %v) on the node", v.HostPath.Path, v.HostPath.Type)
		default:
			t.Fatalf("volume %s: a kind the test does not model", v.Name)
		}
		require.NoError(t, os.MkdirAll(d, 0o755))
		for k, b := range files {
			require.NoError(t, os.WriteFile(filepath.Join(d, k), b, 0o644))
		}
		mounts[m.MountPath] = d
	}
	return mounts
}

// secretData is a Secret's files: the chart's, else an existing one.
func secretData(t *testing.T, o objects, secrets map[string]map[string][]byte, name string) map[string][]byte {
	t.Helper()
	if s := o.secrets[name]; s != nil {
		files := map[string][]byte{}
		for k, b := range s.Data {
			files[k] = b
		}
		for k, v := range s.StringData {
			files[k] = []byte(v)
		}
		return files
	}
	files, ok := secrets[name]
	require.True(t, ok, "Secret %s: neither rendered nor one of the test's existing Secrets", name)
	return files
}

// environment is the container's environment with its Secret references
// resolved.
func environment(t *testing.T, o objects, secrets map[string]map[string][]byte, c corev1.Container) []string {
	t.Helper()
	var env []string
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			ref := e.ValueFrom.SecretKeyRef
			require.NotNil(t, ref, "env %s: only secretKeyRef is modelled", e.Name)
			b, ok := secretData(t, o, secrets, ref.Name)[ref.Key]
			require.True(t, ok, "env %s: Secret %s has no key %s", e.Name, ref.Name, ref.Key)
			v = string(b)
		}
		require.NotContains(t, v, "$(", "env %s: dependent variables are not modelled", e.Name)
		env = append(env, e.Name+"="+v)
	}
	return env
}

// clientFor is an HTTP client of the server: TLS verified against the
// test's CA, with the client certificate cn when given.
func clientFor(p *pki, tlsOn bool, cn string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tlsOn {
		roots := x509.NewCertPool()
		roots.AddCert(p.ca)
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
		if cn != "" {
			tr.TLSClientConfig.Certificates = []tls.Certificate{p.clients[cn]}
		}
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// contractRun renders vals, runs the container and checks the probes, the
// plugin list, a plugin call, the ServiceMonitor's scrape and the stop.
func contractRun(t *testing.T, vals map[string]any) {
	p := contractEnv.pki
	vals = contractValues(t, vals, p)
	out, err := render(vals)
	require.NoError(t, err)
	o := decodeAll(t, out)
	c := container(t, o)
	secrets := existingSecrets(p)
	dir := t.TempDir()
	reg := newFakeRegistry(t, p)
	reg.push(t, vals)
	// The cluster's route to registry.example.com.
	env := append(environment(t, o, secrets, c), "HTTPS_PROXY="+reg.proxy.URL)
	srv := podtest.Start(t, contractEnv.img, podtest.Container{
		Command: c.Command, Args: c.Args, Env: env, Mounts: volumes(t, o, dir, secrets),
	})
	tlsOn := lookup(vals, "tls", "enabled") == true
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	base := scheme + "://" + srv.Addr
	require.Len(t, c.Ports, 1)
	require.Equal(t, srv.Port, fmt.Sprint(c.Ports[0].ContainerPort), "the container's port is the one the server listens on")

	// The kubelet's probes: no client certificate, no verification.
	kubelet := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer kubelet.CloseIdleConnections()
	probe := func(pr *corev1.Probe) string {
		require.NotNil(t, pr.HTTPGet)
		require.Equal(t, c.Ports[0].Name, pr.HTTPGet.Port.String())
		return strings.ToLower(string(pr.HTTPGet.Scheme)) + "://" + srv.Addr + pr.HTTPGet.Path
	}
	podtest.WaitReady(t, kubelet, probe(c.ReadinessProbe))
	for _, pr := range []*corev1.Probe{c.StartupProbe, c.LivenessProbe} {
		status, body := podtest.Do(t, kubelet, http.MethodGet, probe(pr), "", "")
		require.Equal(t, http.StatusOK, status, "%s: %s", probe(pr), body)
	}

	// A client the values' rules know: the test's rule, its token and
	// certificate.
	token, cn := "", ""
	if lookup(vals, "config", "access") != nil {
		token = testToken
	}
	if tlsOn && lookup(vals, "tls", "verifyClients") == true {
		cn = "contract-test"
	}
	client := clientFor(p, tlsOn, cn)
	defer client.CloseIdleConnections()
	status, body := podtest.Do(t, client, http.MethodPost, base+"/v1/plugins/"+contractPlugin, token, podtest.UpperIn)
	require.Equal(t, http.StatusOK, status, "%s\n%s", body, srv.Logs())
	require.Equal(t, podtest.UpperOut, body)

	// Every plugin of the ConfigMap is listed and loaded: each manifest
	// the server decoded, an OCI plugin's pulled from the registry with
	// the values' manifest fields.
	status, body = podtest.Do(t, client, http.MethodGet, base+"/v1/plugins", token, "")
	require.Equal(t, http.StatusOK, status, body)
	var list struct {
		Plugins []struct {
			Name, State, Source, Timeout string
			Error                        *struct{ Code, Message string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	listed := map[string]int{}
	for i, pl := range list.Plugins {
		listed[pl.Name] = i
	}
	cm := o.configMaps[o.daemonSet.Spec.Template.Spec.Volumes[0].ConfigMap.Name]
	for k, v := range cm.Data {
		name := strings.TrimSuffix(k, ".yaml")
		i, ok := listed[name]
		require.True(t, ok, "%s is not served: %s", k, body)
		pl := list.Plugins[i]
		var src struct {
			Source string
			Policy struct{ Timeout string }
		}
		require.NoError(t, yaml.Unmarshal([]byte(v), &src))
		require.Equal(t, src.Source, pl.Source, "%s: %s", name, body)
		require.Equal(t, "ready", pl.State, "%s: %s", name, body)
		if src.Policy.Timeout != "" {
			require.Equal(t, src.Policy.Timeout, pl.Timeout, "%s: the manifest's policy applies: %s", name, body)
		}
	}
	_, ok := listed[contractPlugin]
	require.True(t, ok)

	if o.serviceMonitor != nil {
		scrape(t, o, secrets, srv.Addr, p)
	}
	srv.Stop(t)
}

// scrape does what Prometheus does with the ServiceMonitor's endpoint:
// its scheme, path, TLS settings and credentials from their Secrets; the
// answer must be 200 with aclwasm's series.
func scrape(t *testing.T, o objects, secrets map[string]map[string][]byte, addr string, p *pki) {
	t.Helper()
	ep := o.serviceMonitor.Spec.Endpoints[0]
	require.Equal(t, container(t, o).Ports[0].Name, ep.Port)
	key := func(sel map[string]any) []byte {
		name, _ := sel["name"].(string)
		k, _ := sel["key"].(string)
		b, ok := secretData(t, o, secrets, name)[k]
		require.True(t, ok, "Secret %s has no key %s", name, k)
		return b
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	var certPEM, keyPEM []byte
	for k, v := range ep.TLSConfig {
		m, _ := v.(map[string]any)
		switch k {
		case "insecureSkipVerify":
			cfg.InsecureSkipVerify = v == true
		case "serverName":
			cfg.ServerName = v.(string)
		case "ca":
			sec, ok := m["secret"].(map[string]any)
			require.True(t, ok, "tlsConfig.ca: only a Secret is modelled")
			cfg.RootCAs = x509.NewCertPool()
			require.True(t, cfg.RootCAs.AppendCertsFromPEM(key(sec)))
		case "cert":
			sec, ok := m["secret"].(map[string]any)
			require.True(t, ok, "tlsConfig.cert: only a Secret is modelled")
			certPEM = key(sec)
		case "keySecret":
			keyPEM = key(m)
		default:
			t.Fatalf("tlsConfig.%s is not modelled", k)
		}
	}
	if certPEM != nil || keyPEM != nil {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		require.NoError(t, err, "tlsConfig.cert and keySecret")
		cfg.Certificates = []tls.Certificate{pair}
	}
	token := ""
	if a := ep.Authorization; a != nil {
		require.Equal(t, "Bearer", a.Type)
		token = string(key(map[string]any{"name": a.Credentials.Name, "key": a.Credentials.Key}))
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	defer c.CloseIdleConnections()
	status, body := podtest.Do(t, c, http.MethodGet, ep.Scheme+"://"+addr+ep.Path, token, "")
	require.Equal(t, http.StatusOK, status, "Prometheus scrapes %s: %s", ep.Path, body)
	require.Contains(t, body, "aclwasm_")
}

// TestContract runs the chart's container for the defaults, each values
// file of testdata and each one docs/DEPLOY.md shows.
func TestContract(t *testing.T) {
	sharedEnv(t)
	type tc struct {
		name string
		vals map[string]any
	}
	cases := []tc{{"defaults", map[string]any{}}}
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	require.NoError(t, err)
	for _, f := range files {
		cases = append(cases, tc{"testdata/" + filepath.Base(f), readValues(t, filepath.Base(f))})
	}
	for name, text := range docValues(t) {
		vals := map[string]any{}
		require.NoError(t, yaml.UnmarshalStrict([]byte(text), &vals), "docs/DEPLOY.md %s", name)
		cases = append(cases, tc{"DEPLOY.md/" + name, vals})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { contractRun(t, c.vals) })
	}
}

// TestContractRefuses: values a pod could not run with are refused when
// rendering, before any pod starts.
func TestContractRefuses(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{"insecure off without TLS", "server: {insecure: false}", "server.insecure: false needs TLS"},
		{"insecure off without rules", "server: {insecure: false}\ntls: {enabled: true, existingSecret: c}", "and access rules (config.access)"},
		{"no peers", "networkPolicy: {ingressFrom: []}", "networkPolicy.ingressFrom is empty"},
		{"monitor without token", "serviceMonitor: {enabled: true}\nconfig: {access: [{name: a, tokens: ['" + hashToken("x") + "'], admin: [metrics]}]}", "give serviceMonitor.bearerTokenSecret.name"},
		{"monitor without grant", "serviceMonitor: {enabled: true, bearerTokenSecret: {name: m, key: token}}\nconfig: {access: [{name: a, tokens: ['" + hashToken("x") + "'], plugins: ['*']}]}", "no rule grants admin: [metrics]"},
		{"monitor without client certificate", "serviceMonitor: {enabled: true}\ntls: {enabled: true, existingSecret: c, verifyClients: true}", "Prometheus must present a client certificate"},
		{"config without rules", "config: {access: []}", "access"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := map[string]any{}
			require.NoError(t, yaml.Unmarshal([]byte(tc.values), &vals))
			_, err := render(vals)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
