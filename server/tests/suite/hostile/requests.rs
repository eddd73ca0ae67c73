//! Attacks on connections and requests.

use super::*;

#[test]
fn slow_and_silent_connections_are_closed_and_capped_per_address() {
    let srv = start(&[
        "--header-timeout-secs",
        "1",
        "--max-connections-per-ip",
        "8",
    ]);
    let url = srv.url().to_string();
    let start = Instant::now();
    // Eight silent sockets and four that send a header line now and then, from one address.
    let mut held = Vec::new();
    for i in 0..12 {
        let mut tcp = raw_from(&url, "127.0.0.21");
        if i % 3 == 0 {
            tcp.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
        }
        held.push(tcp);
    }
    // The slow ones keep trickling headers; every connection is closed all the same.
    for tcp in held.iter_mut().step_by(3) {
        let _ = tcp.write_all(b"X-Slow: 1\r\n");
    }
    // Each watched on a thread of its own: one read must not wait for another.
    let watchers: Vec<_> = held
        .into_iter()
        .map(|t| std::thread::spawn(move || closed_after(t, start)))
        .collect();
    let times: Vec<f64> = watchers.into_iter().map(|w| w.join().unwrap()).collect();
    let at_once = times.iter().filter(|t| **t < 0.5).count();
    assert!(
        at_once >= 4,
        "four over the cap are closed at once: {times:?}"
    );
    assert!(
        times.iter().all(|t| *t < 3.0),
        "every one is closed within the header timeout: {times:?}"
    );
    // Idle keep-alive: a connection that asked once and then says nothing is closed too.
    let mut idle = raw_from(&url, "127.0.0.22");
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    let t = closed_after(idle, Instant::now());
    assert!(t < 3.0, "an idle keep-alive connection closed after {t} s");
    // The slots came back: the attacker's address is served again, and others always were.
    honest_player_is_served(&url, "127.0.0.21");
    honest_player_is_served(&url, "127.0.0.23");
    let metrics = send(
        Client::new()
            .get(format!("{url}/metrics"))
            .bearer_auth(ADMIN),
    );
    let text = metrics.1.as_str().unwrap().to_string();
    let refused = text
        .lines()
        .find_map(|l| l.strip_prefix("tongcheng_connections_refused_total "))
        .and_then(|n| n.trim().parse::<u64>().ok());
    assert!(refused.is_some_and(|n| n >= 4), "{text}");
}

#[test]
fn a_slow_body_is_cut_off() {
    let srv = start(&["--body-timeout-secs", "1"]);
    let url = srv.url().to_string();
    let mut tcp = raw_from(&url, "127.0.0.31");
    tcp.write_all(
        b"POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 1000\r\n\r\n{\"public_key\":",
    )
    .unwrap();
    let start = Instant::now();
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    let took = start.elapsed().as_secs_f64();
    assert!(took < 5.0, "the body waited {took} s");
    assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");
    honest_player_is_served(&url, "127.0.0.31");
}

#[test]
fn guessing_room_codes_locks_the_guesser_out() {
    let srv = start(&[]);
    let url = srv.url().to_string();
    let owner_http = client_from("127.0.0.41");
    let owner = login(&owner_http, &url);
    let (s, room) = send(
        owner_http
            .post(format!("{url}/v1/rooms"))
            .bearer_auth(&owner.token)
            .json(&json!({"people": 2, "bots": ["easy", "easy"]})),
    );
    assert_eq!(s, 200, "{room}");
    let real = room["code"].as_str().unwrap().to_string();
    let guesser_http = client_from("127.0.0.42");
    let guesser = login(&guesser_http, &url);
    let wrong = |n: u32| {
        let c = format!("{:06}", (real.parse::<u32>().unwrap() + n) % 1_000_000);
        if c == real {
            format!("{:06}", (n + 7) % 1_000_000)
        } else {
            c
        }
    };
    let mut statuses = Vec::new();
    for n in 1..=6 {
        let (s, _) = send(
            guesser_http
                .post(format!("{url}/v1/rooms/{}/join", wrong(n)))
                .bearer_auth(&guesser.token),
        );
        statuses.push(s);
    }
    assert_eq!(statuses, [404; 6], "wrong codes read as unknown");
    // Locked out now: even the right code is refused, and says for how long.
    let r = guesser_http
        .post(format!("{url}/v1/rooms/{real}/join"))
        .bearer_auth(&guesser.token)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait > 60, "locked for minutes, not seconds: {wait}");
    let body: Value = r.json().unwrap();
    assert_eq!(code(&body), "rate_limited");
    // A friend given the code joins.
    let friend_http = client_from("127.0.0.43");
    let friend = login(&friend_http, &url);
    let (s, joined) = send(
        friend_http
            .post(format!("{url}/v1/rooms/{real}/join"))
            .bearer_auth(&friend.token),
    );
    assert_eq!((s, joined["admitted"].as_u64()), (200, Some(2)), "{joined}");
    honest_player_is_served(&url, "127.0.0.44");
}

#[test]
fn metrics_need_the_admin_token_or_their_own_address() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let scrape = format!("127.0.0.1:{port}");
    let srv = start(&["--metrics-listen", &scrape]);
    let url = srv.url().to_string();
    let http = client_from("127.0.0.51");
    let player = login(&http, &url);
    let (s, body) = send(http.get(format!("{url}/metrics")));
    assert_eq!((s, code(&body)), (401, "unauthorized"));
    let (s, _) = send(
        http.get(format!("{url}/metrics"))
            .bearer_auth(&player.token),
    );
    assert_eq!(s, 401, "a player's session is not the admin token");
    let (s, body) = send(http.get(format!("{url}/metrics")).bearer_auth(ADMIN));
    assert_eq!(s, 200);
    assert!(body.as_str().unwrap().contains("tongcheng_logins_total"));
    let mut text = String::new();
    for _ in 0..50 {
        if let Ok(r) = http.get(format!("http://{scrape}/metrics")).send() {
            text = r.text().unwrap();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(text.contains("tongcheng_logins_total 1"), "{text}");
}

#[test]
fn one_account_holds_only_a_few_table_connections() {
    let srv = start(&["--sockets-per-account", "2"]);
    let url = srv.url().to_string();
    let http = client_from("127.0.0.61");
    let dev = login(&http, &url);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let open = || async {
            let mut req = format!("{}/v1/play", url.replace("http://", "ws://"))
                .into_client_request()
                .unwrap();
            req.headers_mut().insert(
                "authorization",
                format!("Bearer {}", dev.token).parse().unwrap(),
            );
            tokio_tungstenite::connect_async(req).await
        };
        let first = open().await.expect("one");
        let _second = open().await.expect("two");
        match open().await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                assert_eq!(r.status().as_u16(), 429);
                assert!(r.headers().contains_key("retry-after"));
                let body: Value = serde_json::from_slice(r.body().as_deref().unwrap()).unwrap();
                assert_eq!(code(&body), "too_many_connections");
            }
            other => panic!("a third connection: {:?}", other.map(|_| ())),
        }
        drop(first.0);
        let mut again = None;
        for _ in 0..50 {
            if let Ok(ws) = open().await {
                again = Some(ws);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(again.is_some(), "a closed connection gives its place back");
    });
    honest_player_is_served(&url, "127.0.0.62");
}

/// Finding 2: one account cannot fill the server with rooms (each starts a table) or queue
/// requests (each may seat one).
#[test]
fn floods_of_rooms_and_queue_requests_are_refused() {
    let srv = start(&["--bot-fill-ms", "50", "--limit", "queue_per_account=2/1"]);
    let url = srv.url().to_string();
    let http = client_from("127.0.0.71");
    let dev = login(&http, &url);
    let room = || {
        send(
            http.post(format!("{url}/v1/rooms"))
                .bearer_auth(&dev.token)
                .json(&json!({"people": 2})),
        )
    };
    let made: Vec<u16> = (0..6).map(|_| room().0).collect();
    assert_eq!(
        made,
        [200, 200, 200, 200, 200, 429],
        "five rooms, then a minute each"
    );
    let queue = || {
        send(
            http.post(format!("{url}/v1/queue"))
                .bearer_auth(&dev.token)
                .json(&json!({"rules": "guobiao", "ranked": false})),
        )
    };
    let answers: Vec<(u16, String)> = (0..3)
        .map(|_| {
            let (s, b) = queue();
            (s, code(&b).to_string())
        })
        .collect();
    assert_eq!(answers[0].0, 200, "{answers:?}");
    assert_eq!(answers[1].0, 200, "{answers:?}");
    assert_eq!(answers[2], (429, "rate_limited".into()));
    honest_player_is_served(&url, "127.0.0.72");
}

#[test]
fn forged_replayed_oversized_and_smuggled_requests_are_refused() {
    let srv = start(&[]);
    let url = srv.url().to_string();
    let http = client_from("127.0.0.81");
    // A forged signature, then a replayed login.
    let dev = Device::new();
    let (_, ch) = send(http.post(format!("{url}/v1/auth/challenge")));
    let nonce = ch["nonce"].as_str().unwrap().to_string();
    let mut forged = dev.login_body(&nonce, None);
    forged["signature"] = json!("00".repeat(64));
    let (s, _) = send(http.post(format!("{url}/v1/auth/login")).json(&forged));
    assert_eq!(s, 401, "a forged signature");
    let signed = dev.login_body(&nonce, None);
    let (s, _) = send(http.post(format!("{url}/v1/auth/login")).json(&signed));
    assert_eq!(s, 200, "the real signature");
    let (s, _) = send(http.post(format!("{url}/v1/auth/login")).json(&signed));
    assert_eq!(s, 401, "the same login sent again: its challenge is spent");
    // A token that is not a session, and a deeply nested body.
    let (s, _) = send(
        http.get(format!("{url}/v1/account"))
            .bearer_auth("f".repeat(64)),
    );
    assert_eq!(s, 401);
    let nested = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (s, _) = send(
        http.post(format!("{url}/v1/auth/login"))
            .header("content-type", "application/json")
            .body(nested),
    );
    assert_eq!(s, 400, "a deeply nested body");
    let (s, body) = send(
        http.post(format!("{url}/v1/auth/login"))
            .header("content-type", "application/json")
            .body(vec![b' '; 5 << 20]),
    );
    assert_eq!((s, code(&body)), (413, "body_too_large"));
    // Smuggling: with a length and a chunked encoding at once, the chunked body counts and
    // the connection is closed after the answer, so nothing smuggled behind it is read as a
    // request of its own; an encoding that is not chunked is refused.
    let mut tcp = raw_from(&url, "127.0.0.82");
    tcp.write_all(
        b"POST /v1/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\
          Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .unwrap();
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(
        answer.matches("HTTP/1.1 ").count(),
        1,
        "one answer: {answer}"
    );
    assert!(!answer.contains("openapi"), "{answer}");
    let mut tcp = raw_from(&url, "127.0.0.82");
    tcp.write_all(
        b"POST /v1/auth/challenge HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
    )
    .unwrap();
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    honest_player_is_served(&url, "127.0.0.81");
}

#[test]
fn the_access_log_has_a_line_per_request_with_its_account_and_never_a_token() {
    let dir = tempfile_dir();
    let log = dir.join("server.log");
    let db = format!("sqlite:{}", dir.join("server.db").display());
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tongcheng-server"));
    cmd.args([
        "--database",
        &db,
        "--log-json",
        "--limit",
        "room_codes_per_source=1/1",
    ])
    .env("RUST_LOG", "info")
    .stderr(std::fs::File::create(&log).unwrap());
    let mut srv = ServerProcess::start_command(&mut cmd);
    let url = srv.url().to_string();
    let http = client_from("127.0.0.91");
    let dev = login(&http, &url);
    let (s, _) = send(
        http.get(format!("{url}/v1/account"))
            .bearer_auth(&dev.token),
    );
    assert_eq!(s, 200);
    for _ in 0..2 {
        let _ = send(
            http.get(format!("{url}/v1/rooms/123456"))
                .bearer_auth(&dev.token),
        );
    }
    srv.kill();
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let answered = |route: &str| -> Vec<&Value> {
        lines
            .iter()
            .filter(|l| l["fields"]["message"] == "answered" && l["span"]["route"] == route)
            .collect()
    };
    let account = answered("/v1/account");
    assert_eq!(account.len(), 1, "{}", &text[..text.len().min(3000)]);
    let line = account[0];
    assert_eq!(line["fields"]["status"], 200);
    assert_eq!(line["span"]["account"], dev.account, "{line}");
    assert!(line["span"]["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert!(line["fields"]["latency_ms"].is_number());
    let rooms = answered("/v1/rooms/{code}");
    let statuses: Vec<&Value> = rooms.iter().map(|l| &l["fields"]["status"]).collect();
    assert_eq!(statuses, [&json!(404), &json!(429)], "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l["fields"]["quota"] == "room_codes_per_account"),
        "the refusal names its quota: {text}"
    );
    assert!(!text.contains(&dev.token), "a token in the log");
    assert!(!text.contains("123456"), "a room code in the log");
    let _ = std::fs::remove_dir_all(dir);
}
