package config

import (
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/league"
)

// Server is the HTTP server's part of the config.
type Server struct {
	Listen string
	// RequestTimeout is every request's deadline (api.Config).
	RequestTimeout time.Duration
	// MaxConnections and MaxConnectionsPerClient cap open connections;
	// 0 is no cap (api.ServeOptions reads 0 as its default, so leagued
	// passes -1 for it).
	MaxConnections, MaxConnectionsPerClient int
	// DrainDelay is how long /readyz answers 503 before the listener
	// closes, at a graceful shutdown.
	DrainDelay time.Duration
	H2C        bool
	// TrustedProxies are the proxies whose X-Forwarded-Proto and
	// X-Forwarded-For the console believes (console.Config).
	TrustedProxies []netip.Prefix
	// Keys are the API keys: server.keys, then api_keys (named api-1, ...)
	// and admin_keys (admin-1, ...). ApplyEnv reads the secrets kept in
	// the environment.
	Keys []api.Key
	// sources say where each key came from, by index.
	sources []keySource
}

// keySource is where a key's secret comes from, when not from the config
// file itself.
type keySource struct {
	env     string // the variable holding it (secret_env)
	file    string // the file holding it (secret_file)
	unnamed bool   // api_keys, admin_keys or their environment variables
}

// read returns the secrets src names (field names the key or webhook in
// errors): nil when it names none (the secret was given inline).
func (src keySource) read(field string, getenv func(string) string) ([]string, error) {
	var v, where string
	switch {
	case src.env != "":
		where = field + ".secret_env: " + src.env
		if v = getenv(src.env); v == "" {
			return nil, fmt.Errorf("%s is not set", where)
		}
	case src.file != "":
		where = field + ".secret_file: " + src.file
		b, err := os.ReadFile(src.file)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		v = string(b)
	default:
		return nil, nil
	}
	secrets, err := splitSecrets(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	return secrets, nil
}

// Log is the logging part of the config.
type Log struct {
	JSON  bool       // log.format: json; else text
	Level slog.Level // log.level
	// Access is the level of the line logged per request; nil: none.
	Access slog.Leveler
}

// Defaults of the server and log sections.
const (
	DefaultRequestTimeout          = api.DefaultRequestTimeout
	DefaultMaxConnections          = api.DefaultMaxConnections
	DefaultMaxConnectionsPerClient = api.DefaultMaxConnectionsPerClient
	DefaultDrainDelay              = 5 * time.Second
)

type serverFile struct {
	Listen                  string    `yaml:"listen"`
	RequestTimeout          duration  `yaml:"request_timeout"`
	MaxConnections          *int      `yaml:"max_connections"`
	MaxConnectionsPerClient *int      `yaml:"max_connections_per_client"`
	DrainDelay              duration  `yaml:"drain_delay"`
	H2C                     bool      `yaml:"h2c"`
	TrustedProxies          []string  `yaml:"trusted_proxies"`
	Keys                    []keyFile `yaml:"keys"`
	APIKeys                 []string  `yaml:"api_keys"`
	AdminKeys               []string  `yaml:"admin_keys"`
}

type keyFile struct {
	Name         string    `yaml:"name"`
	Role         string    `yaml:"role"`
	Leagues      *[]string `yaml:"leagues"`      // nil: every league
	Leaderboards *[]string `yaml:"leaderboards"` // nil: every leaderboard
	Secret       string    `yaml:"secret"`
	SecretEnv    string    `yaml:"secret_env"`
	SecretFile   string    `yaml:"secret_file"`
}

type logFile struct {
	Format string `yaml:"format"`
	Level  string `yaml:"level"`
	Access string `yaml:"access"`
}

// build checks the server section; leagues and leaderboards are the ids
// the config defines, which keys' scopes must name.
func (sf serverFile) build(leagues, leaderboards []string) (Server, error) {
	s := Server{Listen: sf.Listen, H2C: sf.H2C, MaxConnections: DefaultMaxConnections,
		MaxConnectionsPerClient: DefaultMaxConnectionsPerClient}
	if s.Listen == "" {
		s.Listen = DefaultListen
	}
	if err := checkListen(s.Listen); err != nil {
		return s, fmt.Errorf("server.listen: %v", err)
	}
	var err error
	if s.RequestTimeout, err = sf.RequestTimeout.get("server.request_timeout", time.Millisecond); err != nil {
		return s, err
	}
	if s.RequestTimeout == 0 {
		s.RequestTimeout = DefaultRequestTimeout
	}
	s.DrainDelay = DefaultDrainDelay
	if sf.DrainDelay.set {
		if s.DrainDelay, err = sf.DrainDelay.get("server.drain_delay", 0); err != nil {
			return s, err
		}
	}
	for _, c := range []struct {
		field string
		in    *int
		out   *int
	}{{"max_connections", sf.MaxConnections, &s.MaxConnections}, {"max_connections_per_client", sf.MaxConnectionsPerClient, &s.MaxConnectionsPerClient}} {
		if c.in == nil {
			continue
		}
		if *c.in < 0 {
			return s, fmt.Errorf("server.%s: %d is negative; 0 is no cap", c.field, *c.in)
		}
		*c.out = *c.in
	}
	for i, p := range sf.TrustedProxies {
		prefix, err := parseProxy(p)
		if err != nil {
			return s, fmt.Errorf("server.trusted_proxies[%d]: %q is not an IP address or a CIDR range such as 10.0.0.0/8 (%v)", i, p, err)
		}
		s.TrustedProxies = append(s.TrustedProxies, prefix)
	}
	if s.Keys, s.sources, err = sf.keys(leagues, leaderboards); err != nil {
		return s, err
	}
	return s, nil
}

// parseProxy reads a trusted proxy: a CIDR range, or one address.
func parseProxy(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// keys builds the named keys of server.keys and the unnamed ones of
// api_keys and admin_keys (named api-1, admin-1, ...).
func (sf serverFile) keys(leagues, leaderboards []string) ([]api.Key, []keySource, error) {
	var keys []api.Key
	var sources []keySource
	names := map[string]string{} // name -> where it was given
	for i, kf := range sf.Keys {
		where := fmt.Sprintf("server.keys[%d]", i)
		if kf.Name != "" {
			where += " (" + kf.Name + ")"
		}
		k, err := kf.build(leagues, leaderboards)
		if err != nil {
			return nil, nil, fmt.Errorf("%s.%w", where, err)
		}
		if prev, dup := names[k.Name]; dup {
			return nil, nil, fmt.Errorf("%s.name: %q is also the name of %s", where, k.Name, prev)
		}
		names[k.Name] = where
		keys, sources = append(keys, k), append(sources, keySource{env: kf.SecretEnv, file: kf.SecretFile})
	}
	for _, list := range []struct {
		field string
		admin bool
		keys  []string
	}{{"api_keys", false, sf.APIKeys}, {"admin_keys", true, sf.AdminKeys}} {
		for i, secret := range list.keys {
			if why := badKey(secret); why != "" {
				return nil, nil, fmt.Errorf("server.%s[%d]: %s", list.field, i, why)
			}
			k := unnamedKey(list.admin, i, secret)
			if prev, dup := names[k.Name]; dup {
				return nil, nil, fmt.Errorf("server.%s[%d]: its name %q is taken by %s; give that key another", list.field, i, k.Name, prev)
			}
			names[k.Name] = fmt.Sprintf("server.%s[%d]", list.field, i)
			keys, sources = append(keys, k), append(sources, keySource{unnamed: true})
		}
	}
	return keys, sources, checkSecretsUnique(keys)
}

// unnamedKey is the i-th key of api_keys (admin_keys when admin): every
// league, named api-<i+1> (admin-<i+1>).
func unnamedKey(admin bool, i int, secret string) api.Key {
	name := "api-"
	if admin {
		name = "admin-"
	}
	return api.Key{Name: fmt.Sprintf("%s%d", name, i+1), Admin: admin, Secrets: []string{secret}}
}

func (kf keyFile) build(leagues, leaderboards []string) (api.Key, error) {
	k := api.Key{Name: kf.Name}
	if !league.ValidName(kf.Name) {
		return k, fmt.Errorf("name: %q is not 1-%d characters of a-z, 0-9, _ and -, starting with a letter or digit (it appears in logs and metrics)",
			kf.Name, league.MaxScopeLen)
	}
	switch kf.Role {
	case "game":
	case "admin":
		k.Admin = true
	case "":
		return k, fmt.Errorf("role: required: game (the game-server routes) or admin (those and the admin routes)")
	default:
		return k, fmt.Errorf("role: %q is neither game nor admin", kf.Role)
	}
	var err error
	if k.Leagues, err = scope("leagues", "league", kf.Leagues, leagues); err != nil {
		return k, err
	}
	if k.Leaderboards, err = scope("leaderboards", "leaderboard", kf.Leaderboards, leaderboards); err != nil {
		return k, err
	}
	given := 0
	for _, v := range []string{kf.Secret, kf.SecretEnv, kf.SecretFile} {
		if v != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return k, fmt.Errorf("secret, secret_env, secret_file: give one")
	case given == 0:
		return k, fmt.Errorf("secret_file or secret_env: required (the file or environment variable holding the secret; or secret, the secret itself)")
	case kf.Secret != "":
		if why := badKey(kf.Secret); why != "" {
			return k, fmt.Errorf("secret: %s", why)
		}
		k.Secrets = []string{kf.Secret}
	}
	return k, nil
}

// scope checks a key's list of the leagues (or leaderboards) it may call:
// nil when left out (every one), else ids the config defines.
func scope(field, what string, given *[]string, defined []string) ([]string, error) {
	if given == nil {
		return nil, nil
	}
	if len(*given) == 0 {
		return nil, fmt.Errorf("%s: an empty list opens nothing; leave it out for every %s", field, what)
	}
	for _, id := range *given {
		if !slices.Contains(defined, id) {
			return nil, fmt.Errorf("%s: no %s %q in this config", field, what, id)
		}
	}
	return slices.Clone(*given), nil
}

// checkSecretsUnique refuses a secret given to two keys (its caller would
// be either), and a name given twice.
func checkSecretsUnique(keys []api.Key) error {
	owner, names := map[string]string{}, map[string]bool{}
	for _, k := range keys {
		if names[k.Name] {
			return fmt.Errorf("server keys: two keys are named %q", k.Name)
		}
		names[k.Name] = true
		for _, s := range k.Secrets {
			if prev, dup := owner[s]; dup && prev != k.Name {
				return fmt.Errorf("server keys %q and %q have the same secret", prev, k.Name)
			}
			owner[s] = k.Name
		}
	}
	return nil
}

// resolveSecrets reads the secrets of keys given by secret_env or
// secret_file: one, or two separated by a comma or a line break while one is
// rotated. A file is read again at every load (leagued's SIGHUP), an
// environment variable only holds what the process started with.
func (s *Server) resolveSecrets(getenv func(string) string) error {
	for i, src := range s.sources {
		secrets, err := src.read(fmt.Sprintf("server.keys[%d] (%s)", i, s.Keys[i].Name), getenv)
		if err != nil {
			return err
		}
		if secrets != nil {
			s.Keys[i].Secrets = secrets
		}
	}
	return checkSecretsUnique(s.Keys)
}

// splitSecrets reads one secret, or two (old and new) separated by a comma
// or a line break; spaces and line breaks around them do not count.
func splitSecrets(v string) ([]string, error) {
	parts := strings.FieldsFunc(strings.TrimSpace(v), func(r rune) bool { return r == ',' || r == '\n' })
	if len(parts) == 0 || strings.HasSuffix(strings.TrimSpace(v), ",") {
		parts = append(parts, "") // an empty one, said as such below
	}
	if len(parts) > 2 {
		return nil, fmt.Errorf("holds %d secrets; one, or two while rotating", len(parts))
	}
	var out []string
	for j, p := range parts {
		p = strings.TrimSpace(p)
		if why := badKey(p); why != "" {
			return nil, fmt.Errorf("secret %d of %d: %s", j+1, len(parts), why)
		}
		out = append(out, p)
	}
	return out, nil
}

// replaceUnnamed replaces the keys of api_keys (admin_keys when admin) with
// keys, which an environment variable gave.
func (s *Server) replaceUnnamed(admin bool, keys []api.Key) {
	var kept []api.Key
	var sources []keySource
	for i, k := range s.Keys {
		if !s.sources[i].unnamed || k.Admin != admin {
			kept, sources = append(kept, k), append(sources, s.sources[i])
		}
	}
	for _, k := range keys {
		kept, sources = append(kept, k), append(sources, keySource{unnamed: true})
	}
	s.Keys, s.sources = kept, sources
}

// SecretFrom says where the i-th key's secret comes from: "$VAR", "file
// PATH", or "" when the config file holds it (leaguectl config check).
func (s *Server) SecretFrom(i int) string {
	switch {
	case i >= len(s.sources):
		return ""
	case s.sources[i].env != "":
		return "$" + s.sources[i].env
	case s.sources[i].file != "":
		return "file " + s.sources[i].file
	}
	return ""
}

func (lf logFile) build() (Log, error) {
	var l Log
	switch lf.Format {
	case "", "text":
	case "json":
		l.JSON = true
	default:
		return l, fmt.Errorf("log.format: %q is neither text nor json", lf.Format)
	}
	var err error
	if l.Level, err = parseLevel("log.level", lf.Level, slog.LevelInfo); err != nil {
		return l, err
	}
	if lf.Access != "off" {
		access, err := parseLevel("log.access", lf.Access, slog.LevelDebug)
		if err != nil {
			return l, fmt.Errorf("%v, or off", err)
		}
		l.Access = access
	}
	return l, nil
}

func parseLevel(field, v string, def slog.Level) (slog.Level, error) {
	switch v {
	case "":
		return def, nil
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%s: %q is not a level: debug, info, warn or error", field, v)
}
