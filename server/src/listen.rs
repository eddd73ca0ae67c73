//! Taking connections: our own accept loop over hyper's HTTP/1 connection, because
//! `axum::serve` sets no timer (so no header-read timeout: a client sending one header line
//! every few seconds, or nothing at all, held its socket for ever) and limits nothing per
//! address.
//!
//! Each connection must send a whole request head within `header_timeout` of being accepted
//! or of its previous answer (hyper starts the timer when it starts reading a head, so the
//! same bound closes idle keep-alive connections). Each address holds at most
//! `per_address` connections at once, table sockets included: the slot is carried into the
//! request and held by an upgraded WebSocket until it closes. A connection over the cap is
//! closed at once, before a byte is read. Bodies are bounded in time by the request timeout
//! (extractors read them inside it) and per frame by [`crate::app`]'s body timeout.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt;

use crate::metrics::Metrics;

/// Connections the kernel queues for the accept loop: the most `listen(2)` takes here
/// (Linux caps it at `net.core.somaxconn`, 4096 by default). The accept loop empties the
/// queue in microseconds, but a burst — thousands of players reconnecting after a network
/// blip, or one address opening two thousand sockets at once — overflows the 1,024 that
/// `TcpListener::bind` asks for, and the overflow's handshakes are dropped and retried by
/// the clients for up to a minute.
pub const LISTEN_BACKLOG: u32 = 4096;

/// Listens on `addr` (any of its resolved addresses, the first that binds) with
/// [`LISTEN_BACKLOG`].
pub async fn bind(addr: &str) -> std::io::Result<TcpListener> {
    let mut last = None;
    for a in tokio::net::lookup_host(addr).await? {
        let socket = if a.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        // As std's and tokio's own bind do, so a restarted server gets its port back at once.
        socket.set_reuseaddr(true)?;
        match socket.bind(a).and_then(|()| socket.listen(LISTEN_BACKLOG)) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to listen on")
    }))
}

/// How connections are bounded.
#[derive(Clone, Copy, Debug)]
pub struct ConnLimits {
    /// Time to send a request head, from the accept or the previous answer.
    pub header_timeout: Duration,
    /// Connections one address may hold open at once (table sockets included).
    pub per_address: usize,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            per_address: 64,
        }
    }
}

/// Open connections per address.
#[derive(Default)]
struct OpenPerAddress(Mutex<HashMap<IpAddr, usize>>);

/// One open connection's place in its address's count, given back when the last holder (the
/// connection, or the WebSocket it became) drops it. Handlers find it in the request's
/// extensions.
#[derive(Clone)]
pub struct ConnSlot(#[allow(dead_code)] Arc<SlotInner>);

struct SlotInner {
    ip: IpAddr,
    open: Arc<OpenPerAddress>,
}

impl Drop for SlotInner {
    fn drop(&mut self) {
        if let Ok(mut m) = self.open.0.lock()
            && let Some(n) = m.get_mut(&self.ip)
        {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

impl OpenPerAddress {
    /// A slot for one more connection from `ip`, or `None` when it holds `cap` already.
    fn take(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<ConnSlot> {
        let mut m = self.0.lock().ok()?;
        let n = m.entry(ip).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(ConnSlot(Arc::new(SlotInner {
            ip,
            open: self.clone(),
        })))
    }
}

/// Accepts connections on `listener` and serves `router` on each until `shutdown`
/// completes; then stops accepting and waits for the connections' requests under way.
pub async fn serve_connections(
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let open = Arc::new(OpenPerAddress::default());
    // Every connection task holds a receiver: its closing is how the end is awaited, and the
    // sender's message is how each is told to finish up.
    let (stop_tx, stop_rx) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was taken: wait a
                    // little rather than spin, and go on.
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = open.take(peer.ip(), limits.per_address) else {
            metrics.connections_refused.increment(1);
            drop(tcp);
            continue;
        };
        tokio::spawn(connection(
            tcp,
            peer,
            slot,
            router.clone(),
            limits,
            stop_rx.clone(),
        ));
    }
    drop(stop_rx);
    let _ = stop_tx.send(());
    stop_tx.closed().await;
    Ok(())
}

/// Serves one connection: its requests carry the peer's address and the connection's slot.
async fn connection(
    tcp: TcpStream,
    peer: SocketAddr,
    slot: ConnSlot,
    router: Router,
    limits: ConnLimits,
    mut stop: watch::Receiver<()>,
) {
    // An online table's frames are small and must go out at once (with Nagle's algorithm,
    // every answer waited ~40 ms for the peer's delayed ACK).
    let _ = tcp.set_nodelay(true);
    let service = router.map_request(move |req: Request<Incoming>| {
        let mut req = req.map(Body::new);
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(slot.clone());
        req
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let conn = http
        .serve_connection(TokioIo::new(tcp), TowerToHyperService::new(service))
        .with_upgrades();
    let mut conn = pin!(conn);
    let mut stopping = false;
    loop {
        tokio::select! {
            done = conn.as_mut() => {
                if let Err(e) = done {
                    tracing::trace!(error = %e, "connection ended");
                }
                break;
            }
            _ = stop.changed(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_slots_back() {
        let open = Arc::new(OpenPerAddress::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = open.take(a, 2).unwrap();
        let second = open.take(a, 2).unwrap();
        assert!(open.take(a, 2).is_none(), "a third from one address");
        assert!(open.take(b, 2).is_some(), "another address is not held up");
        let copy = second.clone();
        drop(second);
        assert!(open.take(a, 2).is_none(), "a clone still holds the slot");
        drop(copy);
        let third = open.take(a, 2).unwrap();
        drop((first, third));
        assert!(open.0.lock().unwrap().is_empty(), "no address left counted");
    }
}
