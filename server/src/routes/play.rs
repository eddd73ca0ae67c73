//! The online table's connection: `GET /v1/play` upgrades to a WebSocket carrying the
//! core's [`tongcheng_core::protocol`] messages.
//!
//! The session token is checked before the upgrade (the same `Authorization: Bearer` as the
//! HTTP API, or from a browser the subprotocol `tongcheng.token.<token>` beside
//! `tongcheng.v1`), so nobody unauthenticated holds a socket. A connection then has `auth_ms` to
//! join a table and `idle_ms` between messages; messages are bounded in size and rate. A
//! connection only forwards its messages to its table's task and writes out what the table
//! sends, so a hostile client can at worst lose its own seat.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tongcheng_api::ErrorCode as HttpCode;
use tongcheng_api::endpoints::Play;
use tongcheng_core::protocol::{
    ClientMsg, ErrorCode, MAX_CLIENT_MESSAGE, PROTOCOL_VERSION, ServerMsg,
};
use tracing::Instrument;
use utoipa_axum::router::OpenApiRouter;

use super::{Authed, endpoint};
use crate::error::ApiError;
use crate::listen::ConnSlot;
use crate::play::AbortOnDrop;
use crate::play::join::join;
use crate::play::lobby::OpenConn;
use crate::play::table::Cmd;
use crate::ratelimit::{Limit, SingleLimiter};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(endpoint::<Play, _, _>(play))
}

/// `GET /v1/play`: a session token is needed before the upgrade, and the account may hold
/// only so many table connections at once (`too_many_connections`, 429, otherwise). The
/// connection keeps its address's slot (see [`crate::listen`]) until it closes.
async fn play(
    State(state): State<AppState>,
    auth: Authed,
    slot: Option<Extension<ConnSlot>>,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let per_account = state.online.config.sockets_per_account;
    let Some(open) = state
        .online
        .lobby
        .open_connection(auth.session.account_id, per_account)
    else {
        state.metrics.refused("sockets_per_account");
        tracing::info!(
            quota = "sockets_per_account",
            "refused by a quota: the account's table connections"
        );
        return Err(ApiError {
            retry_after: Some(5),
            ..ApiError::new(
                HttpCode::TooManyConnections,
                format!("this account has {per_account} table connections open already"),
            )
        });
    };
    // The connection outlives the request: it keeps the request's span (its id and route)
    // so what it logs can be found next to the upgrade's line.
    let span = tracing::Span::current();
    // Client messages are small (bounded by MAX_CLIENT_MESSAGE) and every server frame is
    // flushed as it is sent, so small buffers do: tungstenite's 128 KiB defaults, reserved
    // per connection, would dominate a node's memory at ten thousand players.
    Ok(ws
        .protocols([tongcheng_api::play::PLAY_PROTOCOL])
        .max_message_size(MAX_CLIENT_MESSAGE)
        .max_frame_size(MAX_CLIENT_MESSAGE)
        .read_buffer_size(MAX_CLIENT_MESSAGE)
        .write_buffer_size(0)
        .on_upgrade(move |socket| connection(socket, state, auth, open, slot).instrument(span)))
}

/// Refused messages after which a connection is closed.
const MAX_REFUSED: u32 = 100;

async fn connection(
    socket: WebSocket,
    state: AppState,
    auth: Authed,
    (conn, _open): (u64, OpenConn),
    _slot: Option<Extension<ConnSlot>>,
) {
    tracing::debug!(account = auth.session.account_id, "table connection open");
    let config = state.online.config.clone();
    let (mut sink, mut stream) = socket.split();
    let (out, mut out_rx) = mpsc::channel::<String>(4096);
    // Answers the server asked for (a decision, a contribution, ready after a hand) are not
    // charged to the rate limit: a client playing at machine speed (auto-answering) sends
    // far more than a person, and must not lose its answers. Everything else is.
    let asked = Arc::new(AtomicU64::new(0));
    let granted = asked.clone();
    // Whether the table's match is over: then the connection may sit at another table
    // (a tournament's next).
    let over = Arc::new(AtomicBool::new(false));
    let match_ended = over.clone();
    // The writer: frames from the table (and this connection) to the socket, in order.
    let writer = tokio::spawn(async move {
        while let Some(text) = out_rx.recv().await {
            // Server messages serialize their tag first.
            if ["decision", "commit", "hand_end"]
                .iter()
                .any(|t| text.starts_with(&format!("{{\"type\":\"{t}\"")))
            {
                granted.fetch_add(1, Ordering::Relaxed);
            }
            if text.starts_with("{\"type\":\"match_end\"") {
                match_ended.store(true, Ordering::Relaxed);
            }
            // A connection whose seat another one took is told so, then closed.
            let replaced = text.starts_with("{\"type\":\"error\",\"code\":\"replaced\"");
            if sink.send(Message::Text(text.into())).await.is_err() || replaced {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let say = |code: ErrorCode, msg: String| {
        let _ = out.try_send(ServerMsg::error(code, msg).to_json());
    };
    let mut bucket = SingleLimiter::new(Limit {
        burst: config.burst,
        per_sec: config.per_sec,
    });
    let mut seat: Option<(u8, mpsc::Sender<Cmd>)> = None;
    // 下一桌 asked on this connection and not answered yet: aborted when the connection
    // closes or asks again.
    let mut next_table: Option<AbortOnDrop> = None;
    loop {
        let waiting = next_table.as_ref().is_some_and(|t| !t.0.is_finished());
        let wait = if seat.is_none() && !waiting {
            config.auth_ms
        } else {
            config.idle_ms
        };
        let frame = match tokio::time::timeout(Duration::from_millis(wait), stream.next()).await {
            Err(_) => {
                say(
                    ErrorCode::Timeout,
                    if seat.is_none() {
                        "no join in time".into()
                    } else {
                        "silent for too long".into()
                    },
                );
                break;
            }
            Ok(None) | Ok(Some(Err(_))) => break,
            Ok(Some(Ok(m))) => m,
        };
        let text = match frame {
            Message::Text(t) => t,
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Binary(_) => {
                say(ErrorCode::BadMessage, "text frames only".into());
                continue;
            }
        };
        let msg = ClientMsg::parse(text.as_str());
        let answer = matches!(
            msg,
            Ok(ClientMsg::Act { .. } | ClientMsg::Contribute { .. } | ClientMsg::Ready)
        ) && asked
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if !answer && !bucket.take() {
            if bucket.refused() > MAX_REFUSED {
                tracing::info!("connection closed: too many messages refused");
                break;
            }
            say(ErrorCode::RateLimited, "too many messages".into());
            continue;
        }
        let msg = match msg {
            Ok(m) => m,
            Err(e) => {
                say(e.code(), e.to_string());
                continue;
            }
        };
        // A join once the match is over leaves that table for the next (a tournament's).
        if let (ClientMsg::Join { .. }, Some((player, tx))) = (&msg, &seat)
            && (over.load(Ordering::Relaxed) || tx.is_closed())
        {
            let _ = tx
                .send(Cmd::Gone {
                    player: *player,
                    conn,
                })
                .await;
            seat = None;
            over.store(false, Ordering::Relaxed);
            // Answers owed to the last table are not owed any more.
            asked.store(0, Ordering::Relaxed);
        }
        match (&seat, msg) {
            (_, ClientMsg::Ping { nonce }) => {
                let _ = out.try_send(ServerMsg::Pong { nonce }.to_json());
            }
            (_, msg @ ClientMsg::NextTable { .. }) => {
                let task = crate::play::tournament::next_table(
                    state.online.clone(),
                    auth.session.account_id,
                    msg,
                    out.clone(),
                );
                next_table = Some(AbortOnDrop(tokio::spawn(task)));
            }
            (
                None,
                ClientMsg::Join {
                    version,
                    table,
                    people,
                    rules,
                    after,
                },
            ) => {
                if version != PROTOCOL_VERSION {
                    say(
                        ErrorCode::UnsupportedVersion,
                        format!("this server speaks protocol {PROTOCOL_VERSION}"),
                    );
                    continue;
                }
                // A suspended or banned player sits at no table (his seat plays on 托管).
                if let Err(e) = crate::sanctions::ensure_free(
                    &state.store,
                    auth.session.account_id,
                    auth.session.device_id,
                )
                .await
                {
                    let code = match e.code {
                        HttpCode::AccountSuspended => ErrorCode::AccountSuspended,
                        HttpCode::AccountBanned => ErrorCode::AccountBanned,
                        _ => ErrorCode::Internal,
                    };
                    say(code, e.message);
                    continue;
                }
                match join(
                    &state.online,
                    auth.session.account_id,
                    auth.session.device_id,
                    conn,
                    out.clone(),
                    table,
                    people,
                    rules,
                    after,
                )
                .await
                {
                    Ok(s) => {
                        tracing::debug!(seat = s.0, "joined a table");
                        seat = Some(s);
                    }
                    Err((code, m)) => say(code, m),
                }
            }
            (None, _) => say(ErrorCode::NotJoined, "join a table first".into()),
            (Some(_), ClientMsg::Join { .. }) => {
                say(ErrorCode::AlreadyJoined, "already at a table".into())
            }
            (Some((player, tx)), msg) => {
                let leave = matches!(msg, ClientMsg::Leave);
                if tx
                    .send(Cmd::Msg {
                        player: *player,
                        conn,
                        msg,
                    })
                    .await
                    .is_err()
                {
                    // The connection stays for a next table (a tournament's), within the
                    // join limit.
                    say(ErrorCode::MatchOver, "the table is gone".into());
                    seat = None;
                    continue;
                }
                if leave {
                    break;
                }
            }
        }
    }
    if let Some((player, tx)) = seat {
        let _ = tx.send(Cmd::Gone { player, conn }).await;
    }
    drop(out);
    let _ = writer.await;
    tracing::debug!("table connection closed");
}
