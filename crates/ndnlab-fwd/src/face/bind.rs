//! Sockets for channels, opened the way NFD opens them: an IPv6 channel is bound
//! with `IPV6_V6ONLY`, so `0.0.0.0:6363` and `[::]:6363` are two channels that
//! coexist (on Linux an IPv6 wildcard socket would otherwise take the IPv4 port
//! too), and a TCP listener reuses a port still in TIME_WAIT. UDP sockets do not
//! set `SO_REUSEADDR`: on Linux it would let a second daemon share the port.

use std::io;
use std::net::SocketAddr;

use socket2::{Domain, Protocol, Socket, Type};

/// Pending connections a TCP listener holds.
const BACKLOG: i32 = 1024;

fn socket(addr: SocketAddr, ty: Type, proto: Protocol) -> io::Result<Socket> {
    let s = Socket::new(Domain::for_address(addr), ty, Some(proto))?;
    if addr.is_ipv6() {
        s.set_only_v6(true)?;
    }
    Ok(s)
}

/// A non-blocking TCP listener on `addr`.
pub fn tcp_listener(addr: SocketAddr) -> io::Result<std::net::TcpListener> {
    let s = socket(addr, Type::STREAM, Protocol::TCP)?;
    s.set_reuse_address(true)?;
    s.bind(&addr.into())?;
    s.listen(BACKLOG)?;
    s.set_nonblocking(true)?;
    Ok(s.into())
}

/// A non-blocking UDP socket bound to `addr`.
pub fn udp_socket(addr: SocketAddr) -> io::Result<std::net::UdpSocket> {
    let s = socket(addr, Type::DGRAM, Protocol::UDP)?;
    s.bind(&addr.into())?;
    s.set_nonblocking(true)?;
    Ok(s.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_and_ipv6_wildcards_share_a_port() {
        let v4 = tcp_listener("0.0.0.0:0".parse().unwrap()).unwrap();
        let port = v4.local_addr().unwrap().port();
        let Ok(v6) = tcp_listener(format!("[::]:{port}").parse().unwrap()) else {
            ndnlab_testkit::skip("no IPv6 on this host");
            return;
        };
        assert_eq!(v6.local_addr().unwrap().port(), port);

        let u4 = udp_socket("0.0.0.0:0".parse().unwrap()).unwrap();
        let port = u4.local_addr().unwrap().port();
        let u6 = udp_socket(format!("[::]:{port}").parse().unwrap()).unwrap();
        assert_eq!(u6.local_addr().unwrap().port(), port);
    }

    #[test]
    fn a_taken_port_is_still_refused() {
        let a = tcp_listener("127.0.0.1:0".parse().unwrap()).unwrap();
        assert!(tcp_listener(a.local_addr().unwrap()).is_err());
        let u = udp_socket("127.0.0.1:0".parse().unwrap()).unwrap();
        assert!(udp_socket(u.local_addr().unwrap()).is_err());
    }
}
