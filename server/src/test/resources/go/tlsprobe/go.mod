module sipcrypt.test/tlsprobe

go 1.21
