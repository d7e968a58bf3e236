package image

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// WriteTar writes img, tagged ref, as one tar that is both an OCI image
// layout (oci-layout, index.json, blobs/sha256/...) and a docker-archive
// (manifest.json naming the same blobs), the shape `docker save` writes
// since Docker 25. Docker's containerd image store and podman read the
// layout; Docker's classic store, older Docker and podman's docker-archive
// transport read manifest.json. Only one image goes in: a tar of an index
// would load as several images under one tag.
func WriteTar(w io.Writer, img v1.Image, ref name.Tag, at time.Time) error {
	mt, err := img.MediaType()
	if err != nil {
		return err
	}
	rawManifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	cfgName, err := img.ConfigName()
	if err != nil {
		return err
	}
	rawCfg, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	full := ref.Context().Name() + ":" + ref.TagStr()
	if ref.Context().RegistryStr() == name.DefaultRegistry {
		// Docker and containerd write Docker Hub as docker.io.
		full = "docker.io/" + ref.Context().RepositoryStr() + ":" + ref.TagStr()
	}
	index := v1.IndexManifest{
		SchemaVersion: 2,
		MediaType:     types.OCIImageIndex,
		Manifests: []v1.Descriptor{{
			MediaType: mt,
			Digest:    digest,
			Size:      int64(len(rawManifest)),
			Platform:  &v1.Platform{OS: cf.OS, Architecture: cf.Architecture},
			Annotations: map[string]string{
				"io.containerd.image.name":          full,
				"org.opencontainers.image.ref.name": ref.TagStr(),
			},
		}},
	}
	rawIndex, err := json.Marshal(index)
	if err != nil {
		return err
	}
	blob := func(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }
	dm := tarball.Manifest{{Config: blob(cfgName), RepoTags: []string{ref.String()}}}
	tw := tar.NewWriter(w)
	put := func(name string, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: at.UTC()}); err != nil {
			return err
		}
		n, err := io.Copy(tw, r)
		if err == nil && n != size {
			err = fmt.Errorf("%s: %d bytes written, %d expected", name, n, size)
		}
		return err
	}
	putBytes := func(name string, b []byte) error { return put(name, int64(len(b)), bytes.NewReader(b)) }
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: at.UTC()}); err != nil {
			return err
		}
	}
	if err := putBytes(blob(cfgName), rawCfg); err != nil {
		return err
	}
	for _, l := range layers {
		h, err := l.Digest()
		if err != nil {
			return err
		}
		size, err := l.Size()
		if err != nil {
			return err
		}
		rc, err := l.Compressed()
		if err != nil {
			return err
		}
		err = put(blob(h), size, rc)
		rc.Close()
		if err != nil {
			return err
		}
		dm[0].Layers = append(dm[0].Layers, blob(h))
	}
	if err := putBytes(blob(digest), rawManifest); err != nil {
		return err
	}
	rawDM, err := json.Marshal(dm)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", rawIndex},
		{"manifest.json", rawDM},
	} {
		if err := putBytes(f.name, f.data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// Push writes img or idx (one of them non-nil) to ref, with the
// credentials of the Docker config (~/.docker/config.json, its
// credential helpers, $DOCKER_CONFIG) as `docker push` would use them.
func Push(ctx context.Context, ref name.Reference, img v1.Image, idx v1.ImageIndex, opts ...remote.Option) error {
	opts = append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}, opts...)
	if idx != nil {
		return remote.WriteIndex(ref, idx, opts...)
	}
	return remote.Write(ref, img, opts...)
}
