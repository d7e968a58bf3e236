package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/aclwasm/aclwasm/serve"
)

// secureFlags are serve's flags for TLS and access rules.
type secureFlags struct {
	cert, key, clientCA string
	handshake           time.Duration
	config              string
	insecure            bool
}

func (s *secureFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&s.cert, "tls-cert", "", "serve over TLS with this certificate (PEM, with its chain; re-read when the file changes); needs --tls-key")
	fl.StringVar(&s.key, "tls-key", "", "the private key of --tls-cert (PEM; re-read when the file changes)")
	fl.StringVar(&s.clientCA, "client-ca", "", "mutual TLS: require client certificates that these CAs signed (PEM); a certificate's subject is an identity for --config")
	fl.DurationVar(&s.handshake, "tls-handshake-timeout", serve.DefaultHandshakeTimeout, "cut a TLS handshake that takes longer (a stalled client); also the time a client has to send its request headers (up to 1m)")
	fl.StringVar(&s.config, "config", "", "server configuration file (YAML) with access rules: which tokens and client certificates may call which plugins and admin actions; re-read by POST /v1/admin/reload and SIGHUP")
	fl.BoolVar(&s.insecure, "insecure", false, "serve a non-loopback --listen address without TLS or without access rules")
}

// check validates the flags against each other and the listen address;
// it returns the TLS configuration, nil for plain HTTP.
func (s *secureFlags) check(listen string) (*serve.TLSConfig, error) {
	var tc *serve.TLSConfig
	switch {
	case (s.cert == "") != (s.key == ""):
		return nil, errors.New("--tls-cert and --tls-key go together: give both or neither")
	case s.clientCA != "" && s.cert == "":
		return nil, errors.New("--client-ca needs TLS: give --tls-cert and --tls-key too")
	case s.handshake <= 0 || s.handshake > time.Minute:
		return nil, fmt.Errorf("--tls-handshake-timeout %v: want more than 0, at most 1m", s.handshake)
	case s.cert != "":
		tc = &serve.TLSConfig{CertFile: s.cert, KeyFile: s.key, ClientCAFile: s.clientCA, HandshakeTimeout: s.handshake}
	}
	return tc, exposure(listen, tc != nil, s.config != "", s.insecure)
}

// exposure refuses a listen address that is not loopback unless the
// server has both TLS and access rules, or insecure is set: without TLS
// tokens and bodies cross the network in clear, without rules anyone
// who reaches the port runs every plugin.
func exposure(listen string, hasTLS, hasRules, insecure bool) error {
	if insecure || serve.IsLoopback(listen) || hasTLS && hasRules {
		return nil
	}
	var missing []string
	if !hasTLS {
		missing = append(missing, "TLS (--tls-cert, --tls-key)")
	}
	if !hasRules {
		missing = append(missing, "access rules (--config)")
	}
	return fmt.Errorf("--listen %s is not a loopback address: serving it needs %s, or --insecure to serve it without them", listen, strings.Join(missing, " and "))
}

// reloadSignal is SIGHUP: the server configuration file is re-read, then
// the plugin directory rescanned, as by POST /v1/admin/reload; a bad file
// leaves both as they are (serve logs why).
func reloadSignal(ctx context.Context, srv *serve.Server, log *slog.Logger) {
	log.Info("SIGHUP: reloading the configuration and the plugins")
	if srv.ReloadConfig() != nil {
		return
	}
	rep, err := srv.Reload(ctx)
	if err != nil {
		log.Error("SIGHUP: the plugin directory cannot be rescanned", "error", err)
		return
	}
	log.Info("SIGHUP: reloaded", "added", rep.Added, "changed", rep.Changed, "removed", rep.Removed, "loading", rep.Loading)
}

// maxToken bounds what hash-token reads: a token is a line, not a file.
const maxToken = 4 << 10

// hashTokenCmd is serve hash-token: the form of a token that an access
// rule stores.
func hashTokenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hash-token",
		Short: "Read a bearer token from stdin and print its sha256: hash for an access rule of serve --config",
		Long: `Read one bearer token from stdin (one line; its newline is dropped) and
print "sha256:" and the hex of its SHA-256, the form the tokens of an
access rule in serve --config take: the file never holds the token
itself. Use a token that cannot be guessed, such as 32 random bytes:

  openssl rand -hex 32 > token && aclwasm serve hash-token < token`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 0 {
				return &exitError{exitHost, fmt.Errorf("usage: %s (the token comes on stdin)", c.UseLine())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxToken+1))
			if err != nil {
				return &exitError{exitHost, fmt.Errorf("reading the token: %w", err)}
			}
			tok := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
			switch {
			case len(b) > maxToken:
				return &exitError{exitHost, fmt.Errorf("the token is over %d bytes: want one line", maxToken)}
			case tok == "":
				return &exitError{exitHost, errors.New("no token on stdin")}
			case strings.ContainsAny(tok, "\r\n"):
				return &exitError{exitHost, errors.New("more than one line on stdin: want one token")}
			case strings.TrimSpace(tok) != tok:
				return &exitError{exitHost, errors.New("the token starts or ends with white space, which a bearer header drops")}
			}
			if len(tok) < 16 {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: a token of %d characters can be guessed from its hash; use 32 random bytes (openssl rand -hex 32)\n", len(tok))
			}
			fmt.Fprintln(cmd.OutOrStdout(), serve.HashToken(tok))
			return nil
		},
	}
}
