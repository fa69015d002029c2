// A TLS 1.3 client on Go's crypto/tls (standard library only), an independent peer for the tests:
// it prints the version, suite and key-exchange group it negotiated, then sends stdin.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Usage: tlsclient ADDR CA.pem CURVE_ID... ; sends stdin, prints the negotiated version, suite and group,
// then what the server answers until a SIP status line arrives or 10 s pass.
func main() {
	pem, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	var curves []tls.CurveID
	for _, a := range os.Args[3:] {
		n, _ := strconv.Atoi(a)
		curves = append(curves, tls.CurveID(n))
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS13, CurvePreferences: curves}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", os.Args[1], cfg)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	defer conn.Close()
	st := conn.ConnectionState()
	fmt.Printf("version=%s suite=%s group=%s\n", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), st.CurveID)
	msg, _ := io.ReadAll(os.Stdin)
	conn.Write(msg)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), "SIP/2.0 ") {
		n, err := conn.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	fmt.Print(got.String())
}
