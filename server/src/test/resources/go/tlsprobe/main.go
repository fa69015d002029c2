// tlsprobe sends one SIP request over TLS with Go's crypto/tls (standard library only) and prints
// the TLS version, the cipher suite and the first line of the answer. Used by the server's tests as
// a TLS peer nobody in the project wrote.
//
// usage: go run . -addr 127.0.0.1:5061 -ca ca.pem -version 1.2|1.3 -request FILE
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "", "host:port of the TLS listener")
	caFile := flag.String("ca", "", "PEM file of the CA the server's certificate chains to")
	version := flag.String("version", "1.3", "TLS version: 1.2 or 1.3")
	request := flag.String("request", "", "file holding the SIP request to send")
	flag.Parse()

	pem, err := os.ReadFile(*caFile)
	check(err)
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		fail("no certificate in " + *caFile)
	}
	v := uint16(tls.VersionTLS13)
	if *version == "1.2" {
		v = tls.VersionTLS12
	}
	host, _, err := splitHost(*addr)
	check(err)
	cfg := &tls.Config{RootCAs: roots, ServerName: host, MinVersion: v, MaxVersion: v}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", *addr, cfg)
	check(err)
	defer conn.Close()
	check(conn.SetDeadline(time.Now().Add(10 * time.Second)))
	body, err := os.ReadFile(*request)
	check(err)
	_, err = conn.Write(body)
	check(err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	check(err)
	state := conn.ConnectionState()
	fmt.Printf("%s %s\n%s", tls.VersionName(state.Version), tls.CipherSuiteName(state.CipherSuite), line)
}

func splitHost(addr string) (string, string, error) {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[:i], addr[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("no port in %q", addr)
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "tlsprobe:", msg)
	os.Exit(1)
}
