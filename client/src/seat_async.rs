//! A seat at an online table on the caller's tokio runtime: the async driver of the
//! [`SeatStream`] machine, beside the blocking [`crate::OnlineSession`]. One task owns the
//! seat and asks for its next update; thousands of seats share a runtime (the load
//! generator). The connection may come from a given source address, as each phone has its
//! own. A lost connection ends the seat here (the blocking session is the one that resumes).

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tongcheng_core::game::Action;
use tongcheng_core::protocol::{
    ClientMsg, ErrorCode, MAX_SERVER_MESSAGE, NextTable, NextTableState,
};

use crate::ClientError;
use crate::online::{play_url, refused_join};
use crate::seat_stream::{Millis, OnlineOptions, OnlineUpdate, SeatStream};

/// The longest a join waits for its welcome.
const JOIN_LIMIT: Duration = Duration::from_secs(30);

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A seat at an online table, driven by its owner's task.
pub struct AsyncSeat {
    ws: Socket,
    stream: SeatStream,
    epoch: Instant,
    updates: VecDeque<OnlineUpdate>,
    /// The node this connection is to, and how it was opened (to move to another node).
    server: String,
    token: String,
    local: Option<IpAddr>,
}

impl std::fmt::Debug for AsyncSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncSeat")
            .field("stream", &self.stream)
            .finish_non_exhaustive()
    }
}

impl AsyncSeat {
    /// Connects (from `local` when given) with session `token`, joins the table and waits for
    /// the welcome. A `wrong_node` answer is followed once to the node it names, as the
    /// blocking session does. `auto_ready` off: the owner sends ready after each hand.
    pub async fn connect(
        server: &str,
        token: &str,
        options: OnlineOptions,
        local: Option<IpAddr>,
        auto_ready: bool,
    ) -> Result<AsyncSeat, ClientError> {
        let mut stream = SeatStream::new(options, crate::entropy());
        stream.set_auto_ready(auto_ready);
        match AsyncSeat::connect_once(server, token, stream, local).await {
            Err((ClientError::Server { code, message, .. }, stream))
                if code == "wrong_node" && message != server =>
            {
                AsyncSeat::connect_once(&message, token, stream, local)
                    .await
                    .map_err(|(e, _)| e)
            }
            other => other.map_err(|(e, _)| e),
        }
    }

    async fn connect_once(
        server: &str,
        token: &str,
        stream: SeatStream,
        local: Option<IpAddr>,
    ) -> Result<AsyncSeat, (ClientError, SeatStream)> {
        let ws = match open(server, token, local).await {
            Ok(ws) => ws,
            Err(e) => return Err((e, stream)),
        };
        let mut seat = AsyncSeat::on(ws, stream, server, token, local);
        let join = seat.stream.join(seat.now());
        match seat.joined(join).await {
            Ok(()) => Ok(seat),
            Err(e) => Err((e, seat.stream)),
        }
    }

    /// Sends `join` and waits for its welcome (a refusal is the server's error).
    async fn joined(&mut self, join: ClientMsg) -> Result<(), ClientError> {
        self.send(join).await?;
        let until = Instant::now() + JOIN_LIMIT;
        loop {
            match self.next_update(Some(until)).await? {
                Some(OnlineUpdate::Joined { .. }) => return Ok(()),
                Some(OnlineUpdate::Error { code, message }) => {
                    return Err(refused_join(code, message));
                }
                Some(_) => {}
                None => return Err(ClientError::Network("no welcome from the server".into())),
            }
        }
    }

    /// A tournament entrant's connection to `server`, at no table yet: he asks for his
    /// tables on it ([`AsyncSeat::next_table`]) and sits at each ([`AsyncSeat::sit_at`]).
    pub async fn entrant(
        server: &str,
        token: &str,
        local: Option<IpAddr>,
        auto_ready: bool,
    ) -> Result<AsyncSeat, ClientError> {
        let mut stream = SeatStream::new(OnlineOptions::default(), crate::entropy());
        stream.set_auto_ready(auto_ready);
        let ws = open(server, token, local).await?;
        Ok(AsyncSeat::on(ws, stream, server, token, local))
    }

    fn on(
        ws: Socket,
        stream: SeatStream,
        server: &str,
        token: &str,
        local: Option<IpAddr>,
    ) -> AsyncSeat {
        AsyncSeat {
            ws,
            stream,
            epoch: Instant::now(),
            updates: VecDeque::new(),
            server: server.to_string(),
            token: token.to_string(),
            local,
        }
    }

    /// 下一桌: one's table in round `round` of `tournament` (or a bye, or the end), asked on
    /// this connection and waited for; the round's commitment is answered with our
    /// contribution on the way. Frames of the last table still arriving are passed over.
    pub async fn next_table(
        &mut self,
        tournament: &str,
        round: u32,
    ) -> Result<NextTable, ClientError> {
        let ask = self.stream.ask_next_table(tournament, round);
        self.send(ask).await?;
        loop {
            match self.next_update(None).await? {
                Some(OnlineUpdate::NextTable(n))
                    if n.tournament == tournament && n.state != NextTableState::Commit =>
                {
                    return Ok(*n);
                }
                Some(OnlineUpdate::Error {
                    code: code @ (ErrorCode::BadTournament | ErrorCode::Internal),
                    message,
                }) => return Err(refused_join(code, message)),
                _ => {}
            }
        }
    }

    /// Sits at table `table` of node `server` (empty: this connection's), on this
    /// connection when it is that node's, else on a new one to it; waits for the welcome.
    pub async fn sit_at(&mut self, table: &str, server: &str) -> Result<(), ClientError> {
        self.updates.clear();
        if !server.is_empty() && server != self.server {
            let ws = open(server, &self.token, self.local).await?;
            let mut old = std::mem::replace(&mut self.ws, ws);
            let _ = old.close(None).await;
            self.server = server.to_string();
        }
        let join = self.stream.sit_at(table.to_string(), self.now());
        self.joined(join).await
    }

    fn now(&self) -> Millis {
        self.epoch.elapsed().as_millis() as Millis
    }

    /// The seat's stream: the table as it saw it, its decision, its counters.
    pub fn stream(&self) -> &SeatStream {
        &self.stream
    }

    /// The next update, or none once `until` has passed. Meanwhile frames are read, the
    /// stream's answers (contributions, pings) sent. A lost connection is an error.
    pub async fn next_update(
        &mut self,
        until: Option<Instant>,
    ) -> Result<Option<OnlineUpdate>, ClientError> {
        loop {
            if let Some(u) = self.updates.pop_front() {
                return Ok(Some(u));
            }
            let now = Instant::now();
            if until.is_some_and(|u| now >= u) {
                return Ok(None);
            }
            let ping = self.epoch + Duration::from_millis(self.stream.next_tick());
            let wake = until.map_or(ping, |u| u.min(ping));
            // Only reading and sleeping are raced: both can be dropped unfinished without
            // losing anything; frames are sent after the race.
            let frame = tokio::select! {
                f = self.ws.next() => Some(f),
                () = tokio::time::sleep_until(wake.into()) => None,
            };
            let out = match frame {
                None => {
                    let now = self.now();
                    self.stream.tick(now).into_iter().collect()
                }
                Some(Some(Ok(Message::Text(t)))) => {
                    let now = self.now();
                    let step = self.stream.receive(t.as_str(), now);
                    self.updates.extend(step.updates);
                    step.send
                }
                Some(Some(Ok(Message::Close(_))) | None) => {
                    return Err(self.lost("the server closed the connection".into()));
                }
                Some(Some(Ok(_))) => Vec::new(),
                Some(Some(Err(e))) => {
                    return Err(self.lost(format!("the connection broke: {e}")));
                }
            };
            for m in out {
                self.send(m).await?;
            }
        }
    }

    fn lost(&mut self, reason: String) -> ClientError {
        self.stream.disconnected(Some(reason.clone()));
        ClientError::Network(reason)
    }

    /// Answers the pending decision (refused here when it is not legal, as the blocking
    /// session does).
    pub async fn act(&mut self, action: Action) -> Result<(), ClientError> {
        let answer = self
            .stream
            .act(action)
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.send(answer).await
    }

    /// Sends a message as it is (ready, when the owner sends it).
    pub async fn send(&mut self, msg: ClientMsg) -> Result<(), ClientError> {
        if self
            .ws
            .send(Message::Text(msg.to_json().into()))
            .await
            .is_err()
        {
            return Err(self.lost("the connection broke".into()));
        }
        Ok(())
    }

    /// Leaves the table and closes the connection.
    pub async fn close(mut self) {
        let _ = self
            .ws
            .send(Message::Text(ClientMsg::Leave.to_json().into()))
            .await;
        let _ = self.ws.close(None).await;
    }
}

/// The WebSocket to `server`'s play address, from `local` when given.
async fn open(server: &str, token: &str, local: Option<IpAddr>) -> Result<Socket, ClientError> {
    open_url(&play_url(server)?, token, local).await
}

/// A table's WebSocket at `url` (`ws(s)://…`), authenticated with the session `token`: for
/// a face that reads the frames itself (the app model's driver on the phones).
pub async fn connect(url: &str, token: &str) -> Result<Socket, ClientError> {
    open_url(url, token, None).await
}

async fn open_url(url: &str, token: &str, local: Option<IpAddr>) -> Result<Socket, ClientError> {
    let mut request = url
        .into_client_request()
        .map_err(|e| ClientError::Protocol(format!("bad address: {e}")))?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| ClientError::Protocol("the session token is not header text".into()))?;
    request.headers_mut().insert("authorization", bearer);
    let host = request.uri().host().unwrap_or_default().to_string();
    let port = request
        .uri()
        .port_u16()
        .unwrap_or(if url.starts_with("wss://") { 443 } else { 80 });
    let peer = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| ClientError::Network(format!("{host}: {e}")))?
        .find(|a| local.is_none_or(|l| l.is_ipv4() == a.is_ipv4()))
        .ok_or_else(|| ClientError::Network(format!("{host} has no usable address")))?;
    let socket = if peer.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(|e| ClientError::Network(e.to_string()))?;
    if let Some(ip) = local {
        socket
            .bind(SocketAddr::new(ip, 0))
            .map_err(|e| ClientError::Network(format!("bind {ip}: {e}")))?;
    }
    let tcp = socket
        .connect(peer)
        .await
        .map_err(|e| ClientError::Network(format!("cannot connect: {e}")))?;
    // Small buffers: a seat's frames are small, and a load run holds thousands of seats.
    let config = WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
        .max_message_size(Some(MAX_SERVER_MESSAGE))
        .max_frame_size(Some(MAX_SERVER_MESSAGE));
    let (ws, _) = tokio_tungstenite::client_async_tls_with_config(request, tcp, Some(config), None)
        .await
        .map_err(|e| ClientError::Network(format!("cannot connect: {e}")))?;
    Ok(ws)
}
