// Package apiserver starts a real kube-apiserver (k8s.io/kubernetes v1.35.4,
// cmd/kube-apiserver/app/testing.StartTestServer) on an embedded etcd
// (k8s.io/apiserver/pkg/storage/etcd3/testserver.RunEtcd, go.etcd.io/etcd/server/v3/embed),
// both on 127.0.0.1, for spreadlab's live-cluster tests. Nothing is downloaded: both come from
// Go modules.
//
// Run by the Rust tests (crates/cluster/tests/apiserver.rs) as a prebuilt test binary:
//
//	SPREADLAB_APISERVER_DIR=<dir> apiserver.test -test.run=TestServe
//
// It writes <dir>/admin.kubeconfig (user "admin", group system:masters), <dir>/viewer.kubeconfig
// (user "viewer", no group: what RBAC grants it is what the test binds), then <dir>/ready, and
// serves until its standard input closes (the test dropping its handle), then tears both down.
package apiserver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	defer server.TearDownFn()

	ca, err := os.ReadFile(filepath.Join(server.TmpDir, "apiserver.crt"))
	if err != nil {
		t.Fatalf("the serving certificate: %v", err)
	}
	for _, user := range []struct{ name, token string }{{"admin", adminToken}, {"viewer", viewerToken}} {
		config := clientcmdapi.NewConfig()
		config.Clusters["test"] = &clientcmdapi.Cluster{Server: server.ClientConfig.Host, CertificateAuthorityData: ca}
		config.AuthInfos[user.name] = &clientcmdapi.AuthInfo{Token: user.token}
		config.Contexts[user.name] = &clientcmdapi.Context{Cluster: "test", AuthInfo: user.name}
		config.CurrentContext = user.name
		if err := clientcmd.WriteToFile(*config, filepath.Join(dir, user.name+".kubeconfig")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), []byte(server.ClientConfig.Host+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("serving on %s until standard input closes", server.ClientConfig.Host)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
