package sandbox

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/aclwasm/aclwasm/acl"
)

// aclInit is aclInit(configPath). Calling it is optional; a second call
// gives 100002. The sandbox grants no filesystem and none of the native
// file's options (dump, profiling, operator settings) means anything in
// it, so a non-empty path succeeds without the host opening anything; the
// trace and the plugin's log (Config.Logger, at warning level) say that
// the file was ignored. Policy.RefuseInitConfig makes such a path give
// ACL_ERROR_INVALID_FILE (100003) instead, as ABI v1.1 did.
func aclInit(c *Call) error {
	if c.s.inited {
		return acl.Errorf(acl.ErrRepeatInitialize, "aclInit was already called")
	}
	if p := c.u32(0); p != 0 {
		path, err := c.cstring("configPath", p)
		if err != nil {
			return err
		}
		if path != "" {
			if c.s.policy.RefuseInitConfig {
				return acl.Errorf(acl.ErrInvalidFile, "configPath %q cannot be read: the sandbox grants no filesystem and the policy refuses configuration files (RefuseInitConfig); pass NULL or \"\"", path)
			}
			c.note = "configPath " + strconv.Quote(path) + " ignored: the sandbox opens no file"
			if l := c.s.appLogger(); l != nil {
				l.LogAttrs(context.Background(), slog.LevelWarn, "aclInit: configuration file ignored: the sandbox opens no file and none of its options has a meaning there",
					slog.String("configPath", path))
			}
		}
	}
	c.s.inited = true
	return nil
}

// aclFinalize is aclFinalize(): releases everything the session holds on
// every device, after its queued work; a second call gives 100037.
func aclFinalize(c *Call) error {
	if c.s.finalized {
		return acl.Errorf(acl.ErrRepeatFinalize, "aclFinalize was already called")
	}
	var first error
	for dev := range c.s.held {
		if err := c.s.syncStreams(c.ctx, int32(dev), -1); err != nil && first == nil {
			first = be(err)
		}
		if err := c.s.releaseDevice(c.ctx, int32(dev), false); err != nil && first == nil {
			first = be(err)
		}
	}
	c.s.finalized = true
	return first
}

// getVersion is aclrtGetVersion(major, minor, patch).
func getVersion(c *Call) error {
	var outs [3][]byte
	for i := range outs {
		var err error
		if outs[i], err = c.out(i, 4); err != nil {
			return err
		}
	}
	maj, mnr, pat := c.s.b.Version()
	le.PutUint32(outs[0], uint32(maj))
	le.PutUint32(outs[1], uint32(mnr))
	le.PutUint32(outs[2], uint32(pat))
	return nil
}
