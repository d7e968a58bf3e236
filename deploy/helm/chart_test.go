// Package helm holds the aclwasm Helm chart (aclwasm/) and its test: the
// chart is rendered with Helm's own packages for several values files and
// every object is decoded strictly into the Kubernetes API's types.
package helm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

const (
	chartDir  = "aclwasm"
	release   = "fleet"
	namespace = "npu"
)

// serviceMonitor is the part of the Prometheus Operator's ServiceMonitor
// (monitoring.coreos.com/v1) the chart writes; decoding into it strictly
// refuses a field the chart misspells.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port          string         `json:"port"`
			Path          string         `json:"path"`
			Scheme        string         `json:"scheme"`
			Interval      string         `json:"interval"`
			ScrapeTimeout string         `json:"scrapeTimeout"`
			TLSConfig     map[string]any `json:"tlsConfig,omitempty"`
			Authorization *struct {
				Type        string                   `json:"type"`
				Credentials corev1.SecretKeySelector `json:"credentials"`
			} `json:"authorization,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// objects are the rendered objects of one release, by kind.
type objects struct {
	daemonSet       *appsv1.DaemonSet
	service         *corev1.Service
	configMaps      map[string]*corev1.ConfigMap
	secrets         map[string]*corev1.Secret
	serviceAccounts map[string]*corev1.ServiceAccount
	pdb             *policyv1.PodDisruptionBudget
	networkPolicy   *networkingv1.NetworkPolicy
	serviceMonitor  *serviceMonitor
	notes           string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aclwasm-contract-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	contractEnv.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// readValues reads a values file of testdata ("" for the defaults).
func readValues(t *testing.T, file string) map[string]any {
	t.Helper()
	vals := map[string]any{}
	if file == "" {
		return vals
	}
	b, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(b, &vals), file)
	return vals
}

// render renders the chart as `helm install --dry-run` would, the schema
// checked first.
func render(vals map[string]any) (map[string]string, error) {
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return nil, err
	}
	rv, err := chartutil.ToRenderValues(chrt, vals, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true, Revision: 1}, nil)
	if err != nil {
		return nil, err
	}
	return engine.Render(chrt, rv)
}

// docSep splits a rendered file into its YAML documents.
var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// decodeStrict decodes one object's JSON into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one value")
	}
	return nil
}

// decodeAll decodes every rendered object strictly into its API type.
func decodeAll(t *testing.T, out map[string]string) objects {
	t.Helper()
	o := objects{configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}, serviceAccounts: map[string]*corev1.ServiceAccount{}}
	files := make([]string, 0, len(out))
	for f := range out {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if strings.HasSuffix(f, "NOTES.txt") {
			o.notes = out[f]
			continue
		}
		for i, doc := range docSep.Split(out[f], -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			where := fmt.Sprintf("%s (document %d)", f, i)
			data, err := yaml.YAMLToJSONStrict([]byte(doc))
			require.NoError(t, err, "%s: %s", where, doc)
			var tm metav1.TypeMeta
			require.NoError(t, json.Unmarshal(data, &tm), where)
			var target any
			switch tm.APIVersion + " " + tm.Kind {
			case "apps/v1 DaemonSet":
				require.Nil(t, o.daemonSet, "one DaemonSet")
				o.daemonSet = &appsv1.DaemonSet{}
				target = o.daemonSet
			case "v1 Service":
				require.Nil(t, o.service, "one Service")
				o.service = &corev1.Service{}
				target = o.service
			case "v1 ConfigMap":
				target = &corev1.ConfigMap{}
			case "v1 Secret":
				target = &corev1.Secret{}
			case "v1 ServiceAccount":
				target = &corev1.ServiceAccount{}
			case "policy/v1 PodDisruptionBudget":
				o.pdb = &policyv1.PodDisruptionBudget{}
				target = o.pdb
			case "networking.k8s.io/v1 NetworkPolicy":
				o.networkPolicy = &networkingv1.NetworkPolicy{}
				target = o.networkPolicy
			case "monitoring.coreos.com/v1 ServiceMonitor":
				o.serviceMonitor = &serviceMonitor{}
				target = o.serviceMonitor
			default:
				t.Fatalf("%s: unexpected object %s %s", where, tm.APIVersion, tm.Kind)
			}
			require.NoError(t, decodeStrict(data, target), "%s: %s", where, doc)
			switch v := target.(type) {
			case *corev1.ConfigMap:
				o.configMaps[v.Name] = v
			case *corev1.Secret:
				o.secrets[v.Name] = v
			case *corev1.ServiceAccount:
				o.serviceAccounts[v.Name] = v
			}
			var m struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			require.NoError(t, json.Unmarshal(data, &m))
			checkMeta(t, where, m.Metadata)
		}
	}
	return o
}

// checkMeta checks a name, namespace and labels as the API server would.
func checkMeta(t *testing.T, where string, m metav1.ObjectMeta) {
	t.Helper()
	require.Empty(t, validation.IsDNS1123Subdomain(m.Name), "%s: name %q", where, m.Name)
	require.Equal(t, namespace, m.Namespace, where)
	for k, v := range m.Labels {
		require.Empty(t, validation.IsQualifiedName(k), "%s: label %q", where, k)
		require.Empty(t, validation.IsValidLabelValue(v), "%s: label %s=%q", where, k, v)
	}
	require.Equal(t, release, m.Labels["app.kubernetes.io/instance"], where)
}

// container is the DaemonSet's only container.
func container(t *testing.T, o objects) corev1.Container {
	t.Helper()
	require.NotNil(t, o.daemonSet, "the DaemonSet")
	cs := o.daemonSet.Spec.Template.Spec.Containers
	require.Len(t, cs, 1)
	return cs[0]
}

// checkHardened asserts the pod's and the container's security settings,
// whatever the values.
func checkHardened(t *testing.T, o objects) {
	t.Helper()
	pod := o.daemonSet.Spec.Template.Spec
	ps := pod.SecurityContext
	require.NotNil(t, ps)
	require.True(t, *ps.RunAsNonRoot)
	require.EqualValues(t, 65532, *ps.RunAsUser)
	require.EqualValues(t, 65532, *ps.RunAsGroup)
	require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, ps.SeccompProfile.Type)
	require.False(t, *pod.AutomountServiceAccountToken)
	require.False(t, pod.HostNetwork || pod.HostPID || pod.HostIPC)
	c := container(t, o)
	sc := c.SecurityContext
	require.NotNil(t, sc)
	require.True(t, *sc.ReadOnlyRootFilesystem)
	require.True(t, *sc.RunAsNonRoot)
	require.EqualValues(t, 65532, *sc.RunAsUser)
	require.False(t, *sc.AllowPrivilegeEscalation)
	require.False(t, *sc.Privileged)
	require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	require.Empty(t, sc.Capabilities.Add)
	require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, sc.SeccompProfile.Type)
}

// checkWiring asserts what ties the objects together: probes, ports,
// selectors, volumes, the cache, the NPU.
func checkWiring(t *testing.T, o objects, vals map[string]any) {
	t.Helper()
	pod := o.daemonSet.Spec.Template.Spec
	c := container(t, o)
	podLabels := labels.Set(o.daemonSet.Spec.Template.Labels)
	sel, err := metav1.LabelSelectorAsSelector(o.daemonSet.Spec.Selector)
	require.NoError(t, err)
	require.True(t, sel.Matches(podLabels), "the DaemonSet selects its pods")

	tlsOn := lookup(vals, "tls", "enabled") == true
	portName, scheme := "http", corev1.URISchemeHTTP
	if tlsOn {
		portName, scheme = "https", corev1.URISchemeHTTPS
	}
	require.Len(t, c.Ports, 1)
	require.Equal(t, portName, c.Ports[0].Name)
	require.EqualValues(t, 8080, c.Ports[0].ContainerPort)
	for probe, path := range map[*corev1.Probe]string{c.StartupProbe: "/healthz", c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
		require.NotNil(t, probe)
		require.NotNil(t, probe.HTTPGet)
		require.Equal(t, path, probe.HTTPGet.Path)
		require.Equal(t, portName, probe.HTTPGet.Port.String())
		require.Equal(t, scheme, probe.HTTPGet.Scheme)
	}
	require.Equal(t, "serve", c.Args[0])
	require.Contains(t, c.Args, "--listen=:8080")
	require.Equal(t, "/plugins", c.Args[len(c.Args)-1], "the served directory is the last argument")
	if tlsOn {
		require.Contains(t, c.Args, "--tls-cert=/etc/aclwasm/tls/tls.crt")
		require.Contains(t, c.Args, "--tls-key=/etc/aclwasm/tls/tls.key")
	} else {
		for _, a := range c.Args {
			require.NotContains(t, a, "--tls-")
		}
	}

	// The NPU: the device plugin's resource, requested and limited alike.
	name := corev1.ResourceName(orDefault(lookup(vals, "npu", "resourceName"), "huawei.com/Ascend910").(string))
	count := resource.MustParse(fmt.Sprint(orDefault(lookup(vals, "npu", "count"), 1)))
	lim, ok := c.Resources.Limits[name]
	require.True(t, ok, "limits has %s: %v", name, c.Resources.Limits)
	require.Zero(t, lim.Cmp(count), "%s limit %s", name, lim.String())
	req := c.Resources.Requests[name]
	require.Zero(t, req.Cmp(lim), "an extended resource is requested as limited")
	for rn := range c.Resources.Limits {
		if strings.Contains(string(rn), "/") {
			require.Equal(t, name, rn, "only the NPU's extended resource")
		}
	}
	wantSel := map[string]string{"accelerator": "huawei-Ascend910"}
	if ns, ok := vals["nodeSelector"].(map[string]any); ok {
		wantSel = map[string]string{}
		for k, v := range ns {
			if v != nil { // null drops a default key
				wantSel[k] = v.(string)
			}
		}
	}
	require.Equal(t, wantSel, pod.NodeSelector)

	// Volumes: each mount has its volume, the cache and /tmp are
	// emptyDirs, each ConfigMap and Secret is rendered or existing.
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		require.NotContains(t, vols, v.Name)
		vols[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		_, ok := vols[m.Name]
		require.True(t, ok, "mount %s has a volume", m.Name)
		mounts[m.MountPath] = m
	}
	require.Len(t, mounts, len(vols), "each volume is mounted once")
	for _, p := range []string{"/cache", "/tmp"} {
		require.NotNil(t, vols[mounts[p].Name].EmptyDir, "%s is an emptyDir", p)
		require.False(t, mounts[p].ReadOnly)
	}
	require.Contains(t, c.Env, corev1.EnvVar{Name: "XDG_CACHE_HOME", Value: "/cache"}, "the compilation cache is in the emptyDir")
	plugins := vols[mounts["/plugins"].Name]
	require.NotNil(t, plugins.ConfigMap)
	require.Contains(t, o.configMaps, plugins.ConfigMap.Name)
	for _, v := range vols {
		if v.Secret != nil && v.Secret.SecretName != lookup(vals, "tls", "existingSecret") {
			require.Contains(t, o.secrets, v.Secret.SecretName, "volume %s", v.Name)
		}
		if v.HostPath != nil {
			require.Equal(t, "cann", orDefault(lookup(vals, "server", "backend"), "cann"), "hostPath only for the native backend")
			for _, m := range c.VolumeMounts {
				if m.Name == v.Name {
					require.True(t, m.ReadOnly, "hostPath %s is read-only", v.HostPath.Path)
				}
			}
		}
	}
	if orDefault(lookup(vals, "serviceAccount", "create"), true) == true {
		require.Contains(t, o.serviceAccounts, pod.ServiceAccountName)
		require.False(t, *o.serviceAccounts[pod.ServiceAccountName].AutomountServiceAccountToken)
	}

	// The Service reaches the pods' port.
	require.NotNil(t, o.service)
	require.True(t, labels.SelectorFromSet(o.service.Spec.Selector).Matches(podLabels))
	require.Len(t, o.service.Spec.Ports, 1)
	require.Equal(t, portName, o.service.Spec.Ports[0].TargetPort.String())

	if o.pdb != nil {
		s, err := metav1.LabelSelectorAsSelector(o.pdb.Spec.Selector)
		require.NoError(t, err)
		require.True(t, s.Matches(podLabels))
		require.NotNil(t, o.pdb.Spec.MinAvailable)
		require.Nil(t, o.pdb.Spec.MaxUnavailable, "a DaemonSet's PDB can only count pods")
		require.Equal(t, 0, int(o.pdb.Spec.MinAvailable.Type), "an integer minAvailable")
	}
	if o.networkPolicy != nil {
		s, err := metav1.LabelSelectorAsSelector(&o.networkPolicy.Spec.PodSelector)
		require.NoError(t, err)
		require.True(t, s.Matches(podLabels))
		require.Len(t, o.networkPolicy.Spec.Ingress, 1)
		require.Equal(t, portName, o.networkPolicy.Spec.Ingress[0].Ports[0].Port.String())
	}
	if o.serviceMonitor != nil {
		s, err := metav1.LabelSelectorAsSelector(&o.serviceMonitor.Spec.Selector)
		require.NoError(t, err)
		require.True(t, s.Matches(labels.Set(o.service.Labels)), "the ServiceMonitor selects the Service")
		require.Len(t, o.serviceMonitor.Spec.Endpoints, 1)
		ep := o.serviceMonitor.Spec.Endpoints[0]
		require.Equal(t, portName, ep.Port)
		require.Equal(t, portName, ep.Scheme)
		require.Equal(t, "/metrics", ep.Path)
	}
	require.Contains(t, o.notes, "kubectl -n "+namespace+" rollout status daemonset/"+o.daemonSet.Name)
}

// lookup returns vals[k0][k1]..., nil when a key is missing.
func lookup(vals map[string]any, keys ...string) any {
	var cur any = vals
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func orDefault(v, def any) any {
	if v == nil {
		return def
	}
	return v
}

// lintChart runs helm lint with vals and fails on any warning or error.
func lintChart(t *testing.T, vals map[string]any) {
	t.Helper()
	l := lint.All(chartDir, vals, namespace, true)
	for _, m := range l.Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint: %s", m)
		}
	}
}

func TestChart(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(t *testing.T, o objects)
	}{
		{"", func(t *testing.T, o objects) {
			c := container(t, o)
			require.Equal(t, "ghcr.io/aclwasm/aclwasm:v0.1.0", c.Image)
			require.Contains(t, c.Args, "--backend=cann")
			require.NotNil(t, o.pdb)
			require.NotNil(t, o.networkPolicy)
			require.Nil(t, o.serviceMonitor)
			require.Contains(t, c.Args, "--insecure", "no TLS, no access rules: the NetworkPolicy guards the port")
			require.Contains(t, c.Args, "--max-guest-memory=3221225472", "75% of the 4Gi limit")
			require.Contains(t, c.Args, "--memory-wait=1s")
			from := o.networkPolicy.Spec.Ingress[0].From
			require.Len(t, from, 1, "only labelled pods by default")
			require.Equal(t, map[string]string{"aclwasm-client": "true"}, from[0].PodSelector.MatchLabels)
			require.Nil(t, from[0].NamespaceSelector, "of the release's namespace")
			require.Contains(t, o.notes, "the pods of namespace\nnpu labelled aclwasm-client=true")
			require.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, o.networkPolicy.Spec.PolicyTypes)
			require.Empty(t, o.secrets, "no configuration, no TLS: no Secret")
			require.Contains(t, c.Env, corev1.EnvVar{Name: "ASCEND_HOME_PATH", Value: "/usr/local/Ascend/ascend-toolkit/latest"})
			require.Contains(t, o.notes, "supplementalGroups is empty")
		}},
		{"oci-tls-monitor.yaml", func(t *testing.T, o objects) {
			c := container(t, o)
			require.Equal(t, "ghcr.io/aclwasm/aclwasm@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", c.Image)
			require.Contains(t, c.Args, "--client-ca=/etc/aclwasm/tls/ca.crt")
			require.Contains(t, c.Args, "--config=/etc/aclwasm/config/config.yaml")
			require.Contains(t, c.Args, "--device-memory=4GiB")
			cm := o.configMaps["fleet-aclwasm-plugins"]
			require.NotNil(t, cm)
			var pre map[string]any
			require.NoError(t, yaml.UnmarshalStrict([]byte(cm.Data["preprocess.yaml"]), &pre))
			require.Equal(t, "oci://registry.example.com/plugins/preprocess:1.4", pre["source"])
			require.Equal(t, "2s", lookup(pre, "policy", "timeout"))
			require.Contains(t, cm.Data["score.yaml"], "source: oci://registry.example.com/plugins/score:stable")
			require.Contains(t, cm.Data["echo.yaml"], "max_concurrent: 4")
			require.Contains(t, cm.Data["echo.yaml"], "name: echo", "the plugin's name, which the server wants")
			require.Equal(t, []byte("\x00asm\x01\x00\x00\x00"), cm.BinaryData["echo.wasm"])
			for k := range cm.Data {
				require.Empty(t, validation.IsConfigMapKey(k), k)
			}
			tlsSecret := o.secrets["fleet-aclwasm-tls"]
			require.NotNil(t, tlsSecret)
			require.Equal(t, corev1.SecretTypeTLS, tlsSecret.Type)
			require.Contains(t, string(tlsSecret.Data["ca.crt"]), "MIIBdummyca")
			cfg := o.secrets["fleet-aclwasm-config"]
			require.NotNil(t, cfg)
			require.Contains(t, cfg.StringData["config.yaml"], "CN=scheduler")
			require.NotNil(t, o.serviceMonitor)
			require.Equal(t, "prometheus", o.serviceMonitor.Labels["release"])
			require.Equal(t, "15s", o.serviceMonitor.Spec.Endpoints[0].Interval)
			require.Equal(t, map[string]any{"name": "aclwasm-prometheus-client", "key": "tls.key"}, o.serviceMonitor.Spec.Endpoints[0].TLSConfig["keySecret"])
			require.NotContains(t, c.Args, "--insecure", "TLS and access rules")
			from := o.networkPolicy.Spec.Ingress[0].From
			require.Len(t, from, 2, "the labelled clients, and Prometheus for the ServiceMonitor")
			require.Equal(t, "prometheus", from[1].PodSelector.MatchLabels["app.kubernetes.io/name"])
			require.NotNil(t, from[1].NamespaceSelector, "Prometheus in any namespace")
			var token *corev1.EnvVar
			for i := range c.Env {
				if c.Env[i].Name == "ACLWASM_ADMIN_TOKEN" {
					token = &c.Env[i]
				}
			}
			require.NotNil(t, token)
			require.Equal(t, "aclwasm-admin", token.ValueFrom.SecretKeyRef.Name)
			require.Equal(t, []int64{1000}, o.daemonSet.Spec.Template.Spec.SecurityContext.SupplementalGroups)
			require.NotContains(t, o.notes, "supplementalGroups is empty")
		}},
		{"custom-npu.yaml", func(t *testing.T, o objects) {
			require.Equal(t, "npu-plugins", o.daemonSet.Name)
			c := container(t, o)
			cpu := c.Resources.Requests[corev1.ResourceCPU]
			require.Equal(t, "1", cpu.String())
			mem := c.Resources.Limits[corev1.ResourceMemory]
			require.Equal(t, "8Gi", mem.String())
			cpuLim := c.Resources.Limits[corev1.ResourceCPU]
			require.Equal(t, "4", cpuLim.String(), "Helm merges the values' maps: the default CPU limit stays")
			require.Equal(t, "10%", o.daemonSet.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.String())
			require.Empty(t, o.secrets, "the existing TLS Secret is used, none rendered")
			var tlsVol *corev1.Volume
			for i, v := range o.daemonSet.Spec.Template.Spec.Volumes {
				if v.Name == "tls" {
					tlsVol = &o.daemonSet.Spec.Template.Spec.Volumes[i]
				}
			}
			require.NotNil(t, tlsVol)
			require.Equal(t, "aclwasm-cert", tlsVol.Secret.SecretName)
			require.Len(t, o.daemonSet.Spec.Template.Spec.Tolerations, 1)
			require.Contains(t, o.notes, "node.kubernetes.io/npu=ascend310p")
		}},
		{"minimal.yaml", func(t *testing.T, o objects) {
			require.Nil(t, o.networkPolicy)
			require.Nil(t, o.pdb)
			require.Empty(t, o.serviceAccounts)
			pod := o.daemonSet.Spec.Template.Spec
			require.Equal(t, "default", pod.ServiceAccountName)
			for _, v := range pod.Volumes {
				require.Nil(t, v.HostPath, "the simulated backend mounts nothing of the host")
			}
			c := container(t, o)
			require.Contains(t, c.Args, "--backend=sim")
			require.Contains(t, c.Args, "--insecure")
			require.Contains(t, o.notes, "WARNING: networkPolicy.enabled is false")
			for _, e := range c.Env {
				require.NotEqual(t, "LD_LIBRARY_PATH", e.Name)
			}
		}},
		{"egress.yaml", func(t *testing.T, o objects) {
			np := o.networkPolicy
			require.NotNil(t, np)
			require.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
			require.Len(t, np.Spec.Ingress[0].From, 2)
			require.Len(t, np.Spec.Egress, 2)
			require.Equal(t, "10.0.0.0/8", np.Spec.Egress[1].To[0].IPBlock.CIDR)
		}},
	} {
		name := tc.file
		if name == "" {
			name = "defaults"
		}
		t.Run(name, func(t *testing.T) {
			vals := readValues(t, tc.file)
			out, err := render(vals)
			require.NoError(t, err)
			o := decodeAll(t, out)
			checkHardened(t, o)
			checkWiring(t, o, vals)
			tc.check(t, o)
			lintChart(t, vals)
		})
	}
}

// TestChartRefuses: values the schema or the templates refuse, each with
// the reason in the error.
func TestChartRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
		byTemplate         bool // a template's fail, which helm lint lets pass
	}{
		{"unknown key", "servr: {port: 80}", "servr", false},
		{"unknown nested key", "server: {prot: 80}", "prot", false},
		{"resource name", "npu: {resourceName: Ascend910}", "resourceName", false},
		{"no NPU", "npu: {count: 0}", "count", false},
		{"percentage PDB", "podDisruptionBudget: {minAvailable: 50%}", "minAvailable", false},
		{"duration", "server: {grace: 10 seconds}", "grace", false},
		{"backend", "server: {backend: gpu}", "backend", false},
		{"plugin name", "plugins: {manifests: {'../x': {}}}", "'../x' does not match", false},
		{"oci source", "plugins: {oci: [{name: p, source: 'https://registry/p:1'}]}", "source", false},
		{"oci manifest with source", "plugins: {oci: [{name: p, source: 'oci://r/p:1', manifest: {source: 'oci://r/q:1'}}]}", "manifest", false},
		{"manifest policy typo", "plugins: {manifests: {p: {module: {path: p.wasm}, policy: {timout: 1s}}}}", "timout", false},
		{"manifest byte count", "plugins: {manifests: {p: {module: {path: p.wasm}, policy: {device_memory: 1TB}}}}", "device_memory", false},
		{"oci manifest field", "plugins: {oci: [{name: p, source: 'oci://r/p:1', manifest: {serve: {max_concurent: 2}}}]}", "max_concurent", false},
		{"config token", "config: {access: [{name: a, tokens: [hunter2], plugins: ['*']}]}", "tokens", false},
		{"config field", "config: {clients: [{name: a}]}", "clients", false},
		{"not PEM", "tls: {enabled: true, cert: hello, key: world}", "cert", false},
		{"digest", "image: {digest: latest}", "digest", false},
		{"extra arg", "server: {extraArgs: ['; rm -rf /']}", "extraArgs", false},
		{"guest memory", "server: {maxGuestMemory: 3Gi}", "maxGuestMemory", false},
		{"guest memory percent", "server: {maxGuestMemoryPercent: 150}", "maxGuestMemoryPercent", false},
		{"memory limit", "resources: {limits: {memory: 4.5Gi}}", `resources.limits.memory "4.5Gi": set server.maxGuestMemory`, true},
		{"TLS without certificate", "tls: {enabled: true}", "give tls.existingSecret, or tls.cert and tls.key", true},
		{"client CA missing", "tls: {enabled: true, verifyClients: true, cert: '-----BEGIN CERTIFICATE-----', key: '-----BEGIN PRIVATE KEY-----'}", "give tls.ca", true},
		{"plugin twice", "plugins: {manifests: {p: {module: {path: p.wasm}}}, oci: [{name: p, source: 'oci://r/p:1'}]}", "p is both in manifests and in oci", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := map[string]any{}
			require.NoError(t, yaml.Unmarshal([]byte(tc.values), &vals))
			_, err := render(vals)
			require.ErrorContains(t, err, tc.want)
			if tc.byTemplate {
				return
			}
			// helm lint checks the schema too.
			refused := false
			for _, m := range lint.All(chartDir, vals, namespace, true).Messages {
				refused = refused || m.Severity == support.ErrorSev
			}
			require.True(t, refused, "helm lint passes %s", tc.values)
		})
	}
}

// TestChartGuestMemory: server.maxGuestMemory is passed as it is written,
// "0" passes no budget, and without it the budget is
// server.maxGuestMemoryPercent of the memory limit (none without a limit).
func TestChartGuestMemory(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{"server: {maxGuestMemory: 2GiB}", "--max-guest-memory=2GiB"},
		{"server: {maxGuestMemory: '0'}", ""},
		{"resources: {limits: {memory: 1000Mi}}\nserver: {maxGuestMemoryPercent: 50, memoryWait: 250ms}", "--max-guest-memory=524288000"},
		{"resources: {limits: {memory: 2G}}", "--max-guest-memory=1500000000"},
		{"resources: {limits: {memory: null}}", ""},
	} {
		vals := map[string]any{}
		require.NoError(t, yaml.Unmarshal([]byte(tc.values), &vals))
		out, err := render(vals)
		require.NoError(t, err, tc.values)
		var got []string
		for _, a := range container(t, decodeAll(t, out)).Args {
			if strings.HasPrefix(a, "--max-guest-memory=") || strings.HasPrefix(a, "--memory-wait=") {
				got = append(got, a)
			}
		}
		if tc.want == "" {
			require.Empty(t, got, tc.values)
			continue
		}
		wait := "--memory-wait=1s"
		if strings.Contains(tc.values, "250ms") {
			wait = "--memory-wait=250ms"
		}
		require.Equal(t, []string{tc.want, wait}, got, tc.values)
	}
}
