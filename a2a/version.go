package a2a

// Version is an A2A protocol version, as it appears in the A2A-Version header
// and in agent cards (Major.Minor).
type Version string

// The protocol versions this module speaks.
const (
	V03 Version = "0.3"
	V10 Version = "1.0"
)

// ParseVersion maps a version string from an agent card or header ("0.3",
// "0.3.0", "1.0", "1.0.1") to a supported [Version]. It reports false for
// anything else, including 0.2.x and 2.x.
func ParseVersion(s string) (Version, bool) {
	switch {
	case s == "0.3" || hasPrefix(s, "0.3."):
		return V03, true
	case s == "1.0" || hasPrefix(s, "1.0."):
		return V10, true
	}
	return "", false
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// String returns the version as written in the A2A-Version header.
func (v Version) String() string { return string(v) }
