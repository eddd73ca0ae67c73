//! `cargo bench -p tongcheng-server --bench bench`: how fast the server verifies records, a
//! sync over loopback, and the matcher seating 10,000 queued players; prints one JSON line.
//! A bench target of its own (not the server binary): it needs the server's library alone.
//! Flags after `--`: `cargo bench -p tongcheng-server --bench bench -- --verify-hands 2000`.
//!
//! Verification: records are read (as the upload route reads them) and replayed (`Verifier::verify`)
//! one after another on one thread — the server's per-core throughput (target: ≥ 5,000
//! hands/s). Sync: a server on 127.0.0.1 with a fresh SQLite file; one device logs in and
//! uploads 1,000 hands in batches of 100, a second device joins with a link code and pulls
//! them (target: ≤ 2 s for the whole).

use std::time::Instant;

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use tongcheng_api::auth::login_message;
use tongcheng_core::bot::simple_hand_records;
use tongcheng_core::hex::{hex, unhex};
use tongcheng_core::record::{HandRecord, Verifier};
use tongcheng_core::rules::RuleSet;

use clap::Parser;
use tongcheng_server::auth::random_bytes;
use tongcheng_server::routes::sync::read_record;
use tongcheng_server::{Config, Shared, store};

#[derive(Parser)]
struct Args {
    /// Hands to verify on one core.
    #[arg(long, default_value_t = 5000)]
    verify_hands: usize,
    /// Hands to upload and pull over loopback.
    #[arg(long, default_value_t = 1000)]
    sync_hands: usize,
    /// Rule-set preset of the hands.
    #[arg(long, default_value = "guobiao")]
    rules: String,
}

fn main() {
    // Cargo passes `--bench` to a bench without libtest's harness: not one of ours.
    let args = Args::parse_from(std::env::args().filter(|a| a != "--bench"));
    match run(&args) {
        Ok(v) => println!("{v}"),
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::exit(1);
        }
    }
}

fn run(args: &Args) -> Result<Value, String> {
    let rules =
        RuleSet::preset(&args.rules).ok_or_else(|| format!("no preset '{}'", args.rules))?;
    let records = simple_hand_records(&rules, args.verify_hands.max(args.sync_hands), 7);
    let texts: Vec<String> = records.iter().map(HandRecord::to_json).collect();

    let verifier = Verifier::any_preset();
    let texts_v = &texts[..args.verify_hands];
    let start = Instant::now();
    for t in texts_v {
        let r = read_record(t).map_err(|e| e.to_string())?;
        verifier.verify(&r).map_err(|e| e.to_string())?;
    }
    let secs = start.elapsed().as_secs_f64();
    // The two halves apart: reading the JSON, and replaying the hand.
    let start = Instant::now();
    let parsed: Vec<HandRecord> = texts_v
        .iter()
        .map(|t| read_record(t))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let parse = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for r in &parsed {
        verifier.verify(r).map_err(|e| e.to_string())?;
    }
    let replay = start.elapsed().as_secs_f64();
    let n = args.verify_hands as f64;
    let verify = json!({
        "hands": args.verify_hands,
        "seconds": secs,
        "hands_per_sec": (n / secs.max(1e-9)).round(),
        "parse_hands_per_sec": (n / parse.max(1e-9)).round(),
        "replay_hands_per_sec": (n / replay.max(1e-9)).round(),
        "average_record_bytes": texts_v.iter().map(String::len).sum::<usize>() / args.verify_hands.max(1),
    });

    let sync = sync_bench(&texts[..args.sync_hands])?;
    Ok(json!({
        "rules": rules.name,
        "verify_one_core": verify,
        "sync_loopback": sync,
        "matchmaking": matchmaking_bench(10_000),
    }))
}

/// `players` waiting in one ranked queue (ratings spread so everyone has close neighbours,
/// every one on its own device and address), seated by one run of the matcher: the median of
/// five runs' time on one core, and how many were seated.
fn matchmaking_bench(players: i64) -> Value {
    use tongcheng_server::play::queue::{Candidate, Queue, QueueConfig};
    let mut times = Vec::new();
    let mut seated = 0;
    for _ in 0..5 {
        let t0 = Instant::now();
        let mut q = Queue::new(QueueConfig::default(), true);
        for a in 0..players {
            let who = Candidate {
                account: a,
                devices: vec![a],
                ip: Some(std::net::IpAddr::from(
                    (10u32 << 24 | a as u32).to_be_bytes(),
                )),
                rating: (a * 7919 % players) as f64 / players as f64 * 50.0,
            };
            q.push(who, (), t0);
        }
        let start = Instant::now();
        seated = q.tick(t0).iter().map(|s| s.players.len()).sum::<usize>();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    json!({"queued": players, "seated": seated, "median_ms": times[2]})
}

fn sync_bench(texts: &[String]) -> Result<Value, String> {
    let dir = std::env::temp_dir().join(format!(
        "tongcheng-bench-{}-{}",
        std::process::id(),
        hex(&random_bytes::<4>().map_err(|e| e.message)?)
    ));
    let store = store::open(&format!("sqlite:{}", dir.join("server.db").display()))
        .map_err(|e| e.to_string())?;
    let state = Shared::new(store, Config::default())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let out = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let base = format!(
            "http://{}",
            listener.local_addr().map_err(|e| e.to_string())?
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(tongcheng_server::serve(listener, state, async {
            let _ = stopped.await;
        }));
        let r = drive(&base, texts).await;
        let _ = stop.send(());
        let _ = server.await;
        r
    });
    let _ = std::fs::remove_dir_all(&dir);
    out
}

async fn post(
    http: &reqwest::Client,
    url: String,
    token: Option<&str>,
    body: Value,
) -> Result<Value, String> {
    let mut req = http.post(url).json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.map_err(|e| e.to_string())?;
    let status = resp.status();
    let v: Value = resp.json().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("{status}: {v}"));
    }
    Ok(v)
}

async fn login(
    http: &reqwest::Client,
    base: &str,
    link_code: Option<&str>,
) -> Result<String, String> {
    let key = SigningKey::from_bytes(&random_bytes::<32>().map_err(|e| e.message)?);
    let public = key.verifying_key().to_bytes();
    let ch = post(http, format!("{base}/v1/auth/challenge"), None, json!({})).await?;
    let nonce = unhex(ch["nonce"].as_str().unwrap_or_default()).ok_or("bad nonce")?;
    let sig = key.sign(&login_message(&nonce, &public));
    let v = post(
        http,
        format!("{base}/v1/auth/login"),
        None,
        json!({"public_key": hex(&public), "nonce": hex(&nonce), "signature": hex(&sig.to_bytes()),
               "device_name": "bench", "link_code": link_code}),
    )
    .await?;
    Ok(v["token"].as_str().unwrap_or_default().to_string())
}

async fn drive(base: &str, texts: &[String]) -> Result<Value, String> {
    let http = reqwest::Client::new();
    let a = login(&http, base, None).await?;
    // The request bodies are made before the clock starts, as a phone has its records ready
    // in its history: what is timed is the network and the server.
    let bodies: Vec<String> = texts
        .chunks(100)
        .map(|chunk| {
            let items: Vec<String> = chunk
                .iter()
                .map(|t| format!("{{\"record\":{t},\"seat\":0,\"played_at\":0}}"))
                .collect();
            format!("{{\"records\":[{}]}}", items.join(","))
        })
        .collect();
    let start = Instant::now();
    let mut accepted = 0;
    for body in bodies {
        let resp = http
            .post(format!("{base}/v1/sync/upload"))
            .bearer_auth(&a)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = resp.status();
        let v: Value = resp.json().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("{status}: {v}"));
        }
        accepted += v["accepted"].as_u64().unwrap_or(0);
    }
    let upload = start.elapsed().as_secs_f64();
    let code = post(&http, format!("{base}/v1/link"), Some(&a), json!({})).await?;
    let b = login(&http, base, code["code"].as_str()).await?;
    let pull_start = Instant::now();
    let mut cursor = String::new();
    let mut pulled = 0;
    loop {
        let v: Value = http
            .get(format!("{base}/v1/sync/pull"))
            .query(&[("cursor", cursor.as_str()), ("limit", "200")])
            .bearer_auth(&b)
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        pulled += v["records"].as_array().map_or(0, Vec::len);
        cursor = v["cursor"].as_str().unwrap_or_default().to_string();
        if !v["more"].as_bool().unwrap_or(false) {
            break;
        }
    }
    let pull = pull_start.elapsed().as_secs_f64();
    if accepted as usize != texts.len() || pulled != texts.len() {
        return Err(format!(
            "uploaded {accepted} and pulled {pulled} of {} hands",
            texts.len()
        ));
    }
    Ok(json!({
        "hands": texts.len(),
        "upload_seconds": upload,
        "pull_seconds": pull,
        "total_seconds": upload + pull,
        "upload_hands_per_sec": (texts.len() as f64 / upload.max(1e-9)).round(),
    }))
}
