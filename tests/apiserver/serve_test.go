// Package apiserver starts a real kube-apiserver (k8s.io/kubernetes v1.35.4,
// cmd/kube-apiserver/app/testing.StartTestServer) on an embedded etcd
// (k8s.io/apiserver/pkg/storage/etcd3/testserver.RunEtcd, go.etcd.io/etcd/server/v3/embed),
// both on 127.0.0.1, for spreadlab's live-cluster tests. Nothing is downloaded: both come from
// Go modules.
//
// Run by the Rust tests (crates/cli/tests/live/apiserver.rs) as a prebuilt test binary:
//
//	SPREADLAB_APISERVER_DIR=<dir> apiserver.test -test.run=^TestServe$
//
// It writes <dir>/admin.kubeconfig (user "admin", group system:masters), <dir>/viewer.kubeconfig
// (user "viewer", no group: what RBAC grants it is what the test binds), then <dir>/ready. The
// kubeconfigs name a TCP proxy in front of the server, so that the server can be restarted
// behind the same address: a line "restart" on standard input stops the server (every proxied
// connection is cut, as a restarting server cuts them), starts a new one on the same etcd and
// writes <dir>/restarted-<n>. It serves until its standard input closes, then tears down.
package apiserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

const adminToken = "spreadlab-admin-token"
const viewerToken = "spreadlab-viewer-token"

func TestServe(t *testing.T) {
	dir := os.Getenv("SPREADLAB_APISERVER_DIR")
	if dir == "" {
		t.Skip("SPREADLAB_APISERVER_DIR is not set: this test only serves the Rust live-cluster tests")
	}
	tokens := filepath.Join(dir, "tokens.csv")
	users := fmt.Sprintf("%s,admin,uid-admin,\"system:masters\"\n%s,viewer,uid-viewer\n", adminToken, viewerToken)
	if err := os.WriteFile(tokens, []byte(users), 0o600); err != nil {
		t.Fatal(err)
	}

	etcd := testserver.RunEtcd(t, nil)
	storage := storagebackend.NewDefaultConfig("/spreadlab", nil)
	storage.Transport.ServerList = etcd.Endpoints()

	flags := []string{
		"--authorization-mode=RBAC",
		"--token-auth-file=" + tokens,
		// No controller manager runs: nothing would create the `default` ServiceAccount the
		// ServiceAccount admission plugin requires of every pod.
		"--disable-admission-plugins=ServiceAccount",
	}
	server := kubeapiservertesting.StartTestServerOrDie(t, nil, flags, storage)
	proxy := newProxy(t, server.ClientConfig.Host)
	defer func() { server.TearDownFn() }()

	ca, err := os.ReadFile(filepath.Join(server.TmpDir, "apiserver.crt"))
	if err != nil {
		t.Fatalf("the serving certificate: %v", err)
	}
	for _, user := range []struct{ name, token string }{{"admin", adminToken}, {"viewer", viewerToken}} {
		config := clientcmdapi.NewConfig()
		config.Clusters["test"] = &clientcmdapi.Cluster{Server: proxy.url, CertificateAuthorityData: ca}
		config.AuthInfos[user.name] = &clientcmdapi.AuthInfo{Token: user.token}
		config.Contexts[user.name] = &clientcmdapi.Context{Cluster: "test", AuthInfo: user.name}
		config.CurrentContext = user.name
		if err := clientcmd.WriteToFile(*config, filepath.Join(dir, user.name+".kubeconfig")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), []byte(proxy.url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("serving on %s (proxy %s) until standard input closes", server.ClientConfig.Host, proxy.url)
	lines := bufio.NewScanner(os.Stdin)
	restarts := 0
	for lines.Scan() {
		switch lines.Text() {
		case "restart":
			// New connections are refused and open ones cut first: the server's graceful
			// shutdown would otherwise wait for its watches to end.
			proxy.point("")
			proxy.cut()
			server.TearDownFn()
			server = kubeapiservertesting.StartTestServerOrDie(t, nil, flags, storage)
			proxy.point(server.ClientConfig.Host)
			restarts++
			marker := filepath.Join(dir, fmt.Sprintf("restarted-%d", restarts))
			if err := os.WriteFile(marker, []byte(server.ClientConfig.Host+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Logf("restarted on %s", server.ClientConfig.Host)
		default:
			t.Logf("unknown command %q", lines.Text())
		}
	}
}

// proxy forwards TCP connections to the current server; TLS passes through it untouched (the
// test server's certificate comes from fixed fixture files, the same after a restart).
type proxy struct {
	url      string
	mu       sync.Mutex
	backend  string
	conns    map[net.Conn]struct{}
	listener net.Listener
}

func newProxy(t *testing.T, backendURL string) *proxy {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{url: "https://" + listener.Addr().String(), conns: map[net.Conn]struct{}{}, listener: listener}
	p.point(backendURL)
	t.Cleanup(func() { listener.Close(); p.cut() })
	go func() {
		for {
			client, err := listener.Accept()
			if err != nil {
				return
			}
			go p.forward(client)
		}
	}()
	return p
}

// point sends new connections to backendURL; "" refuses them (closed at once).
func (p *proxy) point(backendURL string) {
	u, err := url.Parse(backendURL)
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	p.backend = u.Host
	p.mu.Unlock()
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for conn := range p.conns {
		conn.Close()
	}
	p.conns = map[net.Conn]struct{}{}
}

func (p *proxy) forward(client net.Conn) {
	p.mu.Lock()
	backend := p.backend
	p.mu.Unlock()
	if backend == "" {
		client.Close()
		return
	}
	server, err := net.Dial("tcp", backend)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client] = struct{}{}
	p.conns[server] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}
