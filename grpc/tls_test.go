package a2agrpc_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/credentials/local"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/transport"
)

// selfSigned makes a certificate for agent.test, and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "agent.test"},
		DNSNames:     []string{"agent.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// Over TLS: the headers, credentials among them, reach the agent whose
// certificate the caller trusts; an agent whose certificate it does not
// trust gets no call, and the failure is a dial's (never sent).
func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	a := newAgent(t, true, false, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) { return working(id), nil }},
		grpc.Creds(credentials.NewServerTLSFromCert(&cert)))
	dial := a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
		return a.lis.DialContext(ctx)
	}))
	call := transport.Call{Version: a2a.V10, Header: map[string][]string{"Authorization": {"Bearer s3cret"}}}

	trusting, err := a2agrpc.New("passthrough:///agent.test", dial,
		a2agrpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})))
	require.NoError(t, err)
	defer trusting.Close()
	got, err := trusting.GetTask(context.Background(), call, "t-1")
	require.NoError(t, err)
	require.Equal(t, "t-1", got.ID)
	require.Equal(t, []string{"Bearer s3cret"}, a.seen()[0].md.Get("authorization"))

	distrusting, err := a2agrpc.New("passthrough:///agent.test", dial,
		a2agrpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})))
	require.NoError(t, err)
	defer distrusting.Close()
	_, err = distrusting.GetTask(context.Background(), call, "t-1")
	require.Error(t, err)
	require.Contains(t, err.Error(), "certificate")
	require.True(t, callmark.IsUnsent(err))
	require.Len(t, a.seen(), 1, "no call reached the agent")
}

// Credentials given in WithDialOptions do not replace the Transport's: TLS
// asked for with WithTransportCredentials stays TLS, and a plaintext agent
// gets no call, nor the headers. (A stranger's red-team found the dial
// option made the connection plaintext.)
func TestDialOptionsDoNotMakeTLSPlaintext(t *testing.T) {
	a := newAgent(t, true, false, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) { return working(id), nil }})
	tr, err := a2agrpc.New("passthrough:///agent.test",
		a2agrpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})),
		a2agrpc.WithDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return a.lis.DialContext(ctx) })))
	require.NoError(t, err)
	defer tr.Close()
	call := transport.Call{Version: a2a.V10, Header: map[string][]string{"Authorization": {"Bearer s3cret"}}}
	_, err = tr.GetTask(context.Background(), call, "t-1")
	require.Error(t, err, "the TLS handshake with a plaintext agent fails")
	require.True(t, callmark.IsUnsent(err))
	require.Empty(t, a.seen(), "no call, and no header, reached the agent")
}

// fallbackTLS names TLS but makes its connections in plaintext, as xDS's
// client credentials do with an insecure fallback for an address that
// carries no security settings.
type fallbackTLS struct {
	credentials.TransportCredentials
}

func (fallbackTLS) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "tls"}
}

func (f fallbackTLS) Clone() credentials.TransportCredentials { return f }

// A Transport that says Secure refuses a connection its credentials did
// not encrypt: credentials that name TLS and fall back to plaintext get no
// call through, and no header reaches the agent. (A stranger's red-team
// found Resolve sent an https base's headers in the clear so.)
func TestSecureRefusesAConnectionNotEncrypted(t *testing.T) {
	a := newAgent(t, true, false, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) { return working(id), nil }})
	tr, err := a2agrpc.New("passthrough:///agent.test",
		a2agrpc.WithTransportCredentials(fallbackTLS{insecure.NewCredentials()}),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return a.lis.DialContext(ctx) })))
	require.NoError(t, err)
	defer tr.Close()
	require.True(t, tr.Secure(), "its credentials name TLS")
	call := transport.Call{Version: a2a.V10, Header: map[string][]string{"Authorization": {"Bearer s3cret"}}}
	_, err = tr.GetTask(context.Background(), call, "t-1")
	require.ErrorContains(t, err, "not encrypted")
	require.True(t, callmark.IsUnsent(err))
	require.Empty(t, a.seen(), "no call, and no header, reached the agent")
}

// Secure says whether the Transport's connections are encrypted: true with
// TLS credentials, false with WithInsecure or gRPC's insecure credentials.
func TestSecureSaysWhetherConnectionsAreEncrypted(t *testing.T) {
	for name, c := range map[string]struct {
		opt  a2agrpc.Option
		want bool
	}{
		"TLS":                  {a2agrpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})), true},
		"WithInsecure":         {a2agrpc.WithInsecure(), false},
		"insecure credentials": {a2agrpc.WithTransportCredentials(insecure.NewCredentials()), false},
		// local: plaintext, over a loopback address or a Unix socket.
		"local credentials": {a2agrpc.WithTransportCredentials(local.NewCredentials()), false},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := a2agrpc.New("passthrough:///agent.test", c.opt)
			require.NoError(t, err)
			defer tr.Close()
			require.Equal(t, c.want, tr.Secure())
		})
	}
}
