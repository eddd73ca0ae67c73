//! 快速匹配 through the app model against a real server in process: this test is the face
//! (the login's key store and requests from `app_online`, and the table's WebSocket, opened
//! as a browser opens it: the token offered as a subprotocol). A hand is played by taps on
//! what the view offers, the socket is cut mid-hand and taken up again by the model, and the
//! result says the wall verified.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocket;
use tokio_tungstenite::tungstenite::{self, Message};
use tongcheng_app::{App, ClaimKind, Effect, Event, Settings, Tap, View};
use tongcheng_server::Config;

use crate::app_online::Face;
use crate::support::online::start_with;

/// The face's table socket.
struct Socket {
    id: u64,
    ws: WebSocket<TcpStream>,
}

/// Opens `path` on `url` as a browser would: no `Authorization`, the token as a subprotocol.
fn open(url: &str, path: &str, token: &str) -> WebSocket<TcpStream> {
    let addr = url.trim_start_matches("http://");
    let mut req = format!("ws://{addr}{path}").into_client_request().unwrap();
    req.headers_mut().insert(
        "sec-websocket-protocol",
        format!("tongcheng.v1, tongcheng.token.{token}")
            .parse()
            .unwrap(),
    );
    let tcp = TcpStream::connect(addr).unwrap();
    let (ws, answer) = tungstenite::client::client(req, tcp).unwrap();
    // A browser drops a socket whose answer names none of the protocols it offered.
    assert_eq!(
        answer.headers()["sec-websocket-protocol"],
        "tongcheng.v1",
        "the server selects the table's protocol and never echoes the token"
    );
    ws.get_ref()
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    ws
}

/// The tap a player makes on `view`: win when he can, pass a claim, else discard the drawn
/// tile (or the last one).
fn play(view: &View) -> Option<Tap> {
    let View::Table(t) = view else {
        return None;
    };
    let button = |k: ClaimKind| {
        t.claim_bar
            .iter()
            .find(|b| b.tap == Tap::Claim { kind: k } && b.enabled)
    };
    if let Some(b) = button(ClaimKind::Win).or_else(|| button(ClaimKind::Pass)) {
        return Some(b.tap.clone());
    }
    t.drawn
        .iter()
        .chain(t.hand.iter().rev())
        .find(|h| h.enabled)
        .map(|h| h.tap.clone())
}

#[test]
fn a_quick_match_hand_is_played_through_the_model_with_a_reconnect_and_the_wall_verified() {
    let mut config = Config::default();
    config.online.queue.bot_fill_ms = 0;
    let srv = start_with(config);
    let mut face = Face::new(&srv.url);
    let mut app = App::new(Settings::default(), None, 1, 0);
    let started = Instant::now();
    let now = || started.elapsed().as_millis() as u64;
    face.send(&mut app, Event::Network { up: true });
    let View::Home(home) = app.view() else {
        panic!("home first")
    };
    let quick = home
        .buttons
        .iter()
        .find(|b| b.tap == Tap::QuickMatch)
        .unwrap();
    assert!(quick.enabled, "快速匹配 is open once signed in");

    let mut socket: Option<Socket> = None;
    let mut pending = vec![Event::Tap {
        tap: Tap::QuickMatch,
    }];
    let (mut taps, mut cut, mut kept, mut reconnects) = (0, false, 0, 0);
    let until = Instant::now() + Duration::from_secs(60);
    while !matches!(app.view(), View::Result(_)) {
        assert!(
            Instant::now() < until,
            "the hand did not end: {:?}",
            app.view()
        );
        pending.push(Event::Tick { now_ms: now() });
        while let Some(event) = pending.pop() {
            for fx in app.update(event) {
                match fx {
                    Effect::OpenSocket {
                        id, path, token, ..
                    } => {
                        reconnects += 1;
                        socket = Some(Socket {
                            id,
                            ws: open(&srv.url, &path, &token),
                        });
                        pending.push(Event::SocketOpened {
                            id,
                            entropy: "09".repeat(32),
                        });
                    }
                    Effect::SendFrame { id, text } => {
                        let s = socket
                            .as_mut()
                            .filter(|s| s.id == id)
                            .expect("an open socket");
                        s.ws.send(Message::text(text)).unwrap();
                    }
                    Effect::CloseSocket { id } => {
                        if socket.as_ref().is_some_and(|s| s.id == id) {
                            socket = None;
                        }
                    }
                    Effect::KeepHand { .. } => kept += 1,
                    other => pending.extend(face.perform(other)),
                }
            }
        }
        // Frames that came.
        if let Some(s) = socket.as_mut() {
            loop {
                match s.ws.read() {
                    Ok(Message::Text(text)) => pending.push(Event::Frame {
                        id: s.id,
                        text: text.to_string(),
                    }),
                    Ok(_) => {}
                    Err(tungstenite::Error::Io(e))
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            || e.kind() == std::io::ErrorKind::TimedOut =>
                    {
                        break;
                    }
                    Err(e) => panic!("the table's socket failed: {e}"),
                }
            }
            // Frames are taken one at a time, in order.
            pending.reverse();
        }
        if !pending.is_empty() {
            continue;
        }
        if let View::Table(t) = app.view() {
            let bots = t.seats.iter().filter(|s| s.name.ends_with("（电脑）"));
            assert_eq!(bots.count(), 3, "the server's bots named: {:?}", t.seats);
        }
        if socket.is_none() {
            // Cut: the table says so until the model has taken the seat up again.
            if let View::Table(t) = app.view() {
                assert_eq!(t.status, "连接断开，正在重连…");
            }
            std::thread::sleep(Duration::from_millis(10));
        } else if let Some(tap) = play(&app.view()) {
            if taps == 5 && !cut {
                // The connection drops mid-hand, the decision unanswered: the model comes
                // back by itself and the decision with it.
                cut = true;
                let s = socket.take().unwrap();
                drop(s.ws);
                pending.push(Event::SocketClosed { id: s.id });
            } else {
                pending.push(Event::Tap { tap });
            }
            taps += 1;
        }
    }
    assert!(
        cut,
        "the socket was cut before the hand ended ({taps} taps)"
    );
    assert_eq!(reconnects, 2, "one socket, then one more after the cut");
    assert_eq!(kept, 1, "the finished hand is kept in the history");
    let View::Result(r) = app.view() else {
        unreachable!()
    };
    assert_eq!(
        r.fairness.as_deref(),
        Some("牌墙已验证：这一局的牌不是服务器挑的")
    );
    assert!(!r.payments.is_empty());
    // 大厅: the seat plays on by itself; home again.
    let home = r.home.expect("the match goes on");
    face.send(&mut app, Event::Tap { tap: home.tap });
    assert!(matches!(app.view(), View::Home(_)));
}
