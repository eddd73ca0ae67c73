//! Slow and silent sockets beside the load (`--slow-sockets N`): from one address, once the
//! players have all arrived, N connections are opened at once; every other one sends nothing
//! at all, the rest send a header line every 2 s and never finish their request. Each is held
//! until the server closes it or the play time ends. The report says how many the server
//! closed, the longest any of them lived, and what they cost the server's memory, so the
//! honest players' latency can be read beside it.
//!
//! Each socket is opened once: reopening those closed on arrival (all but the address's
//! allowance) makes a flood of thousands of connections a second, which fills the listen
//! queue, and a connection the kernel completed but the server never accepted looks open to
//! the attacker while it costs the server nothing — a figure about the kernel, not the server.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

/// What the attack saw.
#[derive(Default)]
pub(crate) struct AttackCounts {
    /// Connections opened.
    pub(crate) opened: AtomicU64,
    /// Connections the server closed.
    pub(crate) closed: AtomicU64,
    /// Connections refused before they were accepted (the listen queue full).
    pub(crate) refused: AtomicU64,
    /// The longest a connection lived before the server closed it, in milliseconds.
    pub(crate) longest_closed_ms: AtomicU64,
    /// Connections that looked open to the attacker when the play time ended.
    pub(crate) open_at_end: AtomicU64,
}

/// Connections the server's side holds from `from` on its `port`, as the kernel lists them
/// (ESTABLISHED in /proc/net/tcp; the load generator runs beside the server on loopback).
/// What the attacker sees can differ: a connection the kernel completed for the attacker but
/// the server never accepted (its listen queue full) looks open from outside only.
pub(crate) fn server_held(port: u16, from: std::net::Ipv4Addr) -> Option<usize> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let addr = |field: &str| -> Option<(std::net::Ipv4Addr, u16)> {
        let (ip, port) = field.split_once(':')?;
        let ip = u32::from_str_radix(ip, 16).ok()?;
        // The kernel prints the address as the 32-bit word it stores in network order.
        Some((ip.to_le_bytes().into(), u16::from_str_radix(port, 16).ok()?))
    };
    let held = table
        .lines()
        .skip(1)
        .filter(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            f.len() > 3
                && f[3] == "01"
                && addr(f[1]).is_some_and(|(_, p)| p == port)
                && addr(f[2]).is_some_and(|(ip, _)| ip == from)
        })
        .count();
    Some(held)
}

/// One attacker's socket, held until the server closes it or `end`.
async fn slow_socket(
    server: SocketAddr,
    from: IpAddr,
    silent: bool,
    end: Instant,
    counts: Arc<AttackCounts>,
) {
    let Ok(socket) = TcpSocket::new_v4() else {
        return;
    };
    if socket.bind(SocketAddr::new(from, 0)).is_err() {
        return;
    }
    let Ok(mut tcp) = socket.connect(server).await else {
        counts.refused.fetch_add(1, Relaxed);
        return;
    };
    counts.opened.fetch_add(1, Relaxed);
    let opened = Instant::now();
    if !silent {
        let _ = tcp.write_all(b"GET /healthz HTTP/1.1\r\n").await;
    }
    let mut buf = [0u8; 512];
    let closed = loop {
        let next = (Instant::now() + Duration::from_secs(2)).min(end);
        tokio::select! {
            read = tcp.read(&mut buf) => match read {
                Ok(0) | Err(_) => break true,
                Ok(_) => {}
            },
            () = tokio::time::sleep_until(next.into()) => {
                if Instant::now() >= end {
                    break false;
                }
                if !silent && tcp.write_all(b"X-Slow: 1\r\n").await.is_err() {
                    break true;
                }
            }
        }
    };
    if closed {
        counts.closed.fetch_add(1, Relaxed);
        counts
            .longest_closed_ms
            .fetch_max(opened.elapsed().as_millis() as u64, Relaxed);
    } else {
        counts.open_at_end.fetch_add(1, Relaxed);
    }
}

/// The server's address in `url` (`http://HOST:PORT`).
pub(crate) fn server_addr(url: &str) -> Result<SocketAddr, String> {
    url.strip_prefix("http://")
        .unwrap_or(url)
        .trim_end_matches('/')
        .parse()
        .map_err(|e| format!("'{url}': {e}"))
}

/// Starts `n` slow sockets from `from` against `server`, running until `end`.
pub(crate) fn start(
    server: SocketAddr,
    from: IpAddr,
    n: usize,
    end: Instant,
) -> (Arc<AttackCounts>, Vec<tokio::task::JoinHandle<()>>) {
    let counts = Arc::new(AttackCounts::default());
    let tasks = (0..n)
        .map(|i| tokio::spawn(slow_socket(server, from, i % 2 == 0, end, counts.clone())))
        .collect();
    (counts, tasks)
}
