//! 快速匹配 and 好友房 through the app model against a real server in process: this test is
//! the face (the login's key store and requests from `app_online`, and the table's
//! WebSocket, opened as a browser opens it: the token offered as a subprotocol). Hands are
//! played by taps on what the view offers, a socket is cut mid-hand and taken up again by
//! the model, and every result says the wall verified.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocket;
use tokio_tungstenite::tungstenite::{self, Message};
use tongcheng_app::{App, ClaimKind, Effect, Event, Settings, Tap, View};
use tongcheng_server::Config;

use crate::app_online::Face;
use crate::support::online::start_with;

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
        .set_read_timeout(Some(Duration::from_millis(5)))
        .unwrap();
    ws
}

/// One player: the app, its face and its table socket.
pub(crate) struct Player {
    pub(crate) app: App,
    face: Face,
    url: String,
    socket: Option<(u64, WebSocket<TcpStream>)>,
    pending: Vec<Event>,
    sockets_opened: u32,
    hands_kept: u32,
    taps: u32,
    started: Instant,
}

impl Player {
    /// A new device signed in to `url` (its own key, so its own account).
    pub(crate) fn signed_in(url: &str, key: u8) -> Player {
        let mut p = Player {
            app: App::new(Settings::default(), None, u64::from(key), 0),
            face: Face::with_key(url, key),
            url: url.to_string(),
            socket: None,
            pending: Vec::new(),
            sockets_opened: 0,
            hands_kept: 0,
            taps: 0,
            started: Instant::now(),
        };
        p.face.send(&mut p.app, Event::Network { up: true });
        p
    }

    pub(crate) fn tap(&mut self, tap: Tap) {
        self.pending.push(Event::Tap { tap });
        self.pump();
    }

    /// Handles every event due (the clock's, the frames that came) and performs the effects.
    pub(crate) fn pump(&mut self) {
        loop {
            self.pending.push(Event::Tick {
                now_ms: self.started.elapsed().as_millis() as u64,
            });
            while let Some(event) = self.pending.pop() {
                for fx in self.app.update(event) {
                    self.perform(fx);
                }
            }
            let frames = self.frames();
            if frames.is_empty() {
                return;
            }
            // One at a time, in order.
            self.pending.extend(frames.into_iter().rev());
        }
    }

    fn perform(&mut self, fx: Effect) {
        match fx {
            Effect::OpenSocket {
                id, path, token, ..
            } => {
                self.sockets_opened += 1;
                self.socket = Some((id, open(&self.url, &path, &token)));
                self.pending.push(Event::SocketOpened {
                    id,
                    entropy: format!("{:02x}", self.sockets_opened).repeat(32),
                });
            }
            Effect::SendFrame { id, text } => {
                let (open_id, ws) = self.socket.as_mut().expect("an open socket");
                assert_eq!(*open_id, id, "a frame for the socket that is open");
                ws.send(Message::text(text)).unwrap();
            }
            Effect::CloseSocket { id } => {
                if self.socket.as_ref().is_some_and(|(s, _)| *s == id) {
                    self.socket = None;
                }
            }
            Effect::KeepHand { .. } => self.hands_kept += 1,
            other => self.pending.extend(self.face.perform(other)),
        }
    }

    fn frames(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        let Some((id, ws)) = self.socket.as_mut() else {
            return out;
        };
        loop {
            match ws.read() {
                Ok(Message::Text(text)) => out.push(Event::Frame {
                    id: *id,
                    text: text.to_string(),
                }),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return out;
                }
                Err(e) => panic!("the table's socket failed: {e}"),
            }
        }
    }

    /// Cuts the table's connection as a lost signal would.
    fn cut(&mut self) {
        let (id, ws) = self.socket.take().expect("a socket to cut");
        drop(ws);
        self.pending.push(Event::SocketClosed { id });
        self.pump();
    }

    /// One move if the table asks for one: win when he can, pass a claim, else discard the
    /// drawn tile (or the last one). False when nothing is asked.
    pub(crate) fn play(&mut self) -> bool {
        let View::Table(t) = self.app.view() else {
            return false;
        };
        let button = |k: ClaimKind| {
            t.claim_bar
                .iter()
                .find(|b| b.tap == Tap::Claim { kind: k } && b.enabled)
        };
        let tap = match button(ClaimKind::Win).or_else(|| button(ClaimKind::Pass)) {
            Some(b) => Some(b.tap.clone()),
            None => t
                .drawn
                .iter()
                .chain(t.hand.iter().rev())
                .find(|h| h.enabled)
                .map(|h| h.tap.clone()),
        };
        match tap {
            Some(tap) => {
                self.taps += 1;
                self.tap(tap);
                true
            }
            None => false,
        }
    }

    /// Sockets the model asked the face to open so far.
    pub(crate) fn sockets_opened(&self) -> u32 {
        self.sockets_opened
    }

    pub(crate) fn at_result(&self) -> bool {
        matches!(self.app.view(), View::Result(_))
    }

    fn bots_named(&self) -> usize {
        match self.app.view() {
            View::Table(t) => t
                .seats
                .iter()
                .filter(|s| s.name.ends_with("（电脑）"))
                .count(),
            _ => 0,
        }
    }
}

/// The result says the wall verified, and 大厅 leads home while the match plays on.
fn verified_and_home(p: &mut Player) {
    let View::Result(r) = p.app.view() else {
        panic!("not at the result: {:?}", p.app.view())
    };
    assert_eq!(
        r.fairness.as_deref(),
        Some("牌墙已验证：这一局的牌不是服务器挑的")
    );
    assert_eq!(p.hands_kept, 1, "the finished hand is kept in the history");
    let home = r.home.expect("the match goes on");
    p.tap(home.tap);
    assert!(matches!(p.app.view(), View::Home(_)));
}

fn server() -> crate::support::online::TestServer {
    let mut config = Config::default();
    config.online.queue.bot_fill_ms = 0;
    start_with(config)
}

#[test]
fn a_quick_match_hand_is_played_through_the_model_with_a_reconnect_and_the_wall_verified() {
    let srv = server();
    let mut p = Player::signed_in(&srv.url, 7);
    let View::Home(home) = p.app.view() else {
        panic!("home first")
    };
    let quick = home
        .buttons
        .iter()
        .find(|b| b.tap == Tap::QuickMatch)
        .unwrap();
    assert!(quick.enabled, "快速匹配 is open once signed in");
    p.tap(Tap::QuickMatch);
    let until = Instant::now() + Duration::from_secs(60);
    let mut cut = false;
    while !p.at_result() {
        assert!(
            Instant::now() < until,
            "the hand did not end: {:?}",
            p.app.view()
        );
        p.pump();
        if p.socket.is_none() {
            // Cut: the table says so until the model has taken the seat up again.
            if let View::Table(t) = p.app.view() {
                assert_eq!(t.status, "连接断开，正在重连…");
            }
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        if p.bots_named() > 0 {
            assert_eq!(p.bots_named(), 3, "the server's bots named");
        }
        if !cut && matches!(p.app.view(), View::Table(_)) {
            // The connection drops as soon as the hand is dealt (before a move of his could
            // end it): the model comes back by itself.
            cut = true;
            p.cut();
            continue;
        }
        if !p.play() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    assert!(
        cut,
        "the socket was cut before the hand ended ({} taps)",
        p.taps
    );
    assert_eq!(
        p.sockets_opened, 2,
        "one socket, then one more after the cut"
    );
    verified_and_home(&mut p);
}

#[test]
fn two_friends_meet_in_a_room_opened_by_one_and_joined_by_its_code() {
    let srv = server();
    let mut owner = Player::signed_in(&srv.url, 8);
    let mut friend = Player::signed_in(&srv.url, 9);
    owner.tap(Tap::FriendsRoom);
    owner.tap(Tap::RoomPeople { people: 2 });
    owner.tap(Tap::OpenRoom);
    // Waiting for the friend: the code is on the screen.
    let View::Queue(q) = owner.app.view() else {
        panic!("waiting: {:?}", owner.app.view())
    };
    let code: String = q.status.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 6, "{}", q.status);
    assert!(q.status.contains("把号码告诉好友"), "{}", q.status);
    friend.tap(Tap::FriendsRoom);
    for d in code.bytes() {
        friend.tap(Tap::Digit { digit: d - b'0' });
    }
    friend.tap(Tap::JoinRoom);
    let until = Instant::now() + Duration::from_secs(60);
    while !(owner.at_result() && friend.at_result()) {
        assert!(Instant::now() < until, "the hand did not end");
        let mut moved = false;
        for p in [&mut owner, &mut friend] {
            p.pump();
            moved |= p.play();
        }
        if !moved {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    for p in [&mut owner, &mut friend] {
        let View::Result(_) = p.app.view() else {
            unreachable!()
        };
        verified_and_home(p);
    }
    assert!(owner.taps > 0 && friend.taps > 0, "both played");
}

#[test]
fn a_ranked_match_is_played_through_the_model_and_the_ratings_are_asked_again_after_it() {
    let mut config = Config::default();
    config.online.queue.bot_fill_ms = 0;
    config.online.match_hands = Some(1);
    let srv = start_with(config);
    let mut p = Player::signed_in(&srv.url, 11);
    let View::Home(home) = p.app.view() else {
        panic!("home first")
    };
    assert_eq!(home.online.ratings, ["还没有排位成绩"]);
    let ranked = home.buttons.iter().find(|b| b.name == "排位赛").unwrap();
    assert!(ranked.enabled, "排位赛 is open once signed in");
    p.tap(ranked.tap.clone());
    if let View::Queue(q) = p.app.view() {
        assert_eq!(q.title, "排位赛");
    }
    let until = Instant::now() + Duration::from_secs(60);
    while !p.at_result() {
        assert!(Instant::now() < until, "no result: {:?}", p.app.view());
        p.pump();
        if !p.play() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let View::Result(r) = p.app.view() else {
        unreachable!()
    };
    assert!(r.home.is_none(), "a one-hand match is over: {:?}", r.next);
    p.tap(r.next.tap);
    assert!(matches!(p.app.view(), View::Home(_)));
    // Home, and the ratings asked again (a match against bots alone moves none: there is
    // nobody to be ranked against, so the line stays as it was).
    let asked = |p: &Player| {
        p.face
            .requests
            .iter()
            .filter(|r| *r == "GET /v1/ratings")
            .count()
    };
    assert_eq!(asked(&p), 2, "{:?}", p.face.requests);
    assert!(p.face.requests.contains(&"POST /v1/queue".to_string()));
}

#[test]
fn online_auto_play_asked_from_the_table_plays_the_hand_out_by_the_servers_stand_in() {
    let srv = server();
    let mut p = Player::signed_in(&srv.url, 12);
    p.tap(Tap::QuickMatch);
    let until = Instant::now() + Duration::from_secs(60);
    // The table first, at his decision, open for 托管.
    loop {
        p.pump();
        if let View::Table(t) = p.app.view()
            && t.auto_play.enabled
            && t.hint_button.enabled
        {
            assert!(!t.auto_play.selected);
            break;
        }
        assert!(Instant::now() < until, "no table: {:?}", p.app.view());
        std::thread::sleep(Duration::from_millis(2));
    }
    // The hint worked out while the face was idle is the one 提示 shows.
    p.pending.push(Event::Idle);
    p.tap(Tap::Hint);
    let View::Table(t) = p.app.view() else {
        panic!("not the table: {:?}", p.app.view())
    };
    assert!(t.hint.is_some(), "提示 shows the hint");
    p.tap(Tap::AutoPlay);
    // No tap of his after that: the server's stand-in plays every decision at once (his own
    // clock would take minutes: each decision waits its whole time before it times out).
    let asked = Instant::now();
    let until = asked + Duration::from_secs(20);
    while !p.at_result() {
        assert!(Instant::now() < until, "托管 did not play the hand out");
        p.pump();
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(p.taps, 0, "nothing played by him");
    let View::Result(r) = p.app.view() else {
        unreachable!()
    };
    assert_eq!(
        r.fairness.as_deref(),
        Some("牌墙已验证：这一局的牌不是服务器挑的")
    );
    // On 托管 nobody waits for his 下一局: the match plays on, every hand kept.
    assert!(p.hands_kept >= 1);
}

#[test]
fn a_room_with_piao_asks_each_person_the_stake_shows_it_and_the_hand_verifies_with_it() {
    let srv = server();
    let mut owner = Player::signed_in(&srv.url, 12);
    let mut friend = Player::signed_in(&srv.url, 13);
    // 桐城麻将·点炮 with 飘 before every hand, chosen as for a match against bots.
    owner.tap(Tap::PlayBots);
    owner.tap(Tap::PickRules {
        preset: "tongcheng-dianpao".into(),
    });
    owner.tap(Tap::PickPiao { each_hand: true });
    owner.tap(Tap::Back);
    owner.tap(Tap::FriendsRoom);
    let View::Room(form) = owner.app.view() else {
        panic!("the room form: {:?}", owner.app.view())
    };
    assert_eq!(form.rules, "桐城麻将·点炮（飘）");
    owner.tap(Tap::RoomPeople { people: 2 });
    owner.tap(Tap::OpenRoom);
    let View::Queue(q) = owner.app.view() else {
        panic!("waiting: {:?}", owner.app.view())
    };
    let code: String = q.status.chars().filter(char::is_ascii_digit).collect();
    friend.tap(Tap::FriendsRoom);
    for d in code.bytes() {
        friend.tap(Tap::Digit { digit: d - b'0' });
    }
    friend.tap(Tap::JoinRoom);
    // Both are asked before anything moves: the table is drawn with the 飘 choices.
    let until = Instant::now() + Duration::from_secs(30);
    let asked = |p: &Player| matches!(p.app.view(), View::Table(t) if !t.piao_choices.is_empty());
    while !(asked(&owner) && asked(&friend)) {
        assert!(
            Instant::now() < until,
            "飘 never asked: {:?}",
            owner.app.view()
        );
        owner.pump();
        friend.pump();
        std::thread::sleep(Duration::from_millis(2));
    }
    for (p, stake) in [(&mut owner, 2u8), (&mut friend, 0)] {
        let View::Table(t) = p.app.view() else {
            unreachable!()
        };
        assert_eq!(t.status, "本局飘几分？（飘分翻倍计入输赢）");
        assert!(t.hand.len() >= 13, "the dealt hand is shown");
        assert_eq!(t.piao_choices.len(), 11, "0 to 10");
        p.tap(Tap::Piao { stake });
    }
    // Each sees every stake once the hand starts: the owner his own 飘2, the friend the
    // owner's at the owner's seat.
    let until = Instant::now() + Duration::from_secs(30);
    let mut seen = [false; 2];
    while !(owner.at_result() && friend.at_result()) {
        assert!(Instant::now() < until, "the hand did not end");
        let mut moved = false;
        for (i, p) in [&mut owner, &mut friend].into_iter().enumerate() {
            p.pump();
            if let View::Table(t) = p.app.view() {
                assert!(t.piao_choices.is_empty(), "asked once");
                let piao: Vec<_> = t.seats.iter().map(|s| s.piao.clone()).collect();
                if piao.iter().all(Option::is_some) {
                    let mine = if i == 0 { "飘2" } else { "飘0" };
                    assert_eq!(t.seats[0].piao.as_deref(), Some(mine), "{piao:?}");
                    seen[i] = true;
                }
            }
            moved |= p.play();
        }
        if !moved {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    assert_eq!(seen, [true, true], "both saw the stakes");
    for p in [&mut owner, &mut friend] {
        verified_and_home(p);
    }
}

#[test]
fn two_people_in_the_quick_match_queue_at_once_meet_at_one_table() {
    let mut config = Config::default();
    config.online.queue.bot_fill_ms = 1_500;
    config.online.match_hands = Some(1);
    let srv = start_with(config);
    // Each phone on its own thread: the queue's request waits until it is seated.
    let players: Vec<Player> = std::thread::scope(|s| {
        let seat = |key| {
            let url = srv.url.clone();
            s.spawn(move || {
                let mut p = Player::signed_in(&url, key);
                p.tap(Tap::QuickMatch);
                let until = Instant::now() + Duration::from_secs(20);
                while !matches!(p.app.view(), View::Table(_)) {
                    assert!(Instant::now() < until, "not seated: {:?}", p.app.view());
                    p.pump();
                    std::thread::sleep(Duration::from_millis(5));
                }
                p
            })
        };
        let (a, b) = (seat(14), seat(15));
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    for p in &players {
        assert_eq!(p.bots_named(), 2, "two people and two bots at the table");
    }
}
