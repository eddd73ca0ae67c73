//! `tongcheng-server admin …` against a running server: the operator's commands print the
//! API's JSON, act (a suspension refuses the player's login), and fail with the server's
//! words and a non-zero exit on a refusal or a bad argument.

use std::process::{Command, Output};
use std::sync::Arc;

use serde_json::Value;
use tongcheng_client::{ClientError, HttpApi, Identity};
use tongcheng_server::store::sqlite::SqliteStore;

use crate::sanctions::{ADMIN, login, start};

fn admin(url: &str, token: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tongcheng-server"))
        .arg("admin")
        .args(["--server", url, "--admin-token", token, "--by", "ops-li"])
        .args(args)
        .env_remove("TONGCHENG_ADMIN_TOKEN")
        .output()
        .unwrap()
}

fn suspend(url: &str, account: &str, days: u32, reason: &str) -> Output {
    let days = days.to_string();
    let args = [
        "sanction",
        "--account",
        account,
        "--kind",
        "suspend",
        "--days",
        &days,
    ];
    admin(url, ADMIN, &[&args[..], &["--reason", reason]].concat())
}

fn json(o: &Output) -> Value {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("the API's JSON")
}

#[test]
fn the_operators_commands_sanction_list_lift_and_audit() {
    let server = start(Arc::new(SqliteStore::open_in_memory().unwrap()));
    let url = server.url.clone();
    let p = login(&url, 7, false);
    let account = p.account.to_string();

    let s = json(&suspend(&url, &account, 3, "discard signalling"));
    assert_eq!(s["sanction"]["kind"], "suspend");
    assert_eq!(s["sanction"]["active"], true);
    assert_eq!(s["sanction"]["created_by"], "ops-li");
    let id = s["sanction"]["id"].as_i64().unwrap().to_string();
    let listed = json(&admin(&url, ADMIN, &["sanctions", "--account", &account]));
    assert_eq!(listed["sanctions"].as_array().unwrap().len(), 1);

    let lifted = json(&admin(
        &url,
        ADMIN,
        &["lift", &id, "--reason", "appeal upheld"],
    ));
    assert!(lifted["lifted_at"].is_i64());
    // Lifting twice is the server's conflict, said on stderr with a failing exit.
    let again = admin(&url, ADMIN, &["lift", &id]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("conflict"));

    let audit = json(&admin(&url, ADMIN, &["audit", "--account", &account]));
    let actions: Vec<&str> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert!(
        audit["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["actor"] == "ops-li")
    );
    let reviews = json(&admin(&url, ADMIN, &["reviews", "--status", "open"]));
    assert!(reviews["reviews"].as_array().unwrap().is_empty());
}

#[test]
fn a_suspended_player_is_refused_and_bad_commands_change_nothing() {
    let server = start(Arc::new(SqliteStore::open_in_memory().unwrap()));
    let url = server.url.clone();
    let id = Identity::generate().unwrap();
    let first = HttpApi::new(&url)
        .unwrap()
        .login(&id, "phone", None)
        .unwrap();
    let account = first.account.id.to_string();
    // Bad arguments: clap refuses before anything is sent.
    for bad in [
        vec![
            "sanction",
            "--account",
            &account,
            "--kind",
            "nope",
            "--reason",
            "x",
        ],
        vec!["sanction", "--kind", "ban", "--reason", "x"],
        vec!["reviews", "--status", "pending"],
    ] {
        let o = admin(&url, ADMIN, &bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    // A wrong token: the server's refusal, nothing done.
    let o = admin(
        &url,
        "wrong-token",
        &[
            "sanction",
            "--account",
            &account,
            "--kind",
            "ban",
            "--reason",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&o.stderr).is_empty());
    // A suspension without an end: the server's bad_request.
    let o = admin(
        &url,
        ADMIN,
        &[
            "sanction",
            "--account",
            &account,
            "--kind",
            "suspend",
            "--reason",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad_request"));
    let listed = json(&admin(&url, ADMIN, &["sanctions", "--account", &account]));
    assert!(
        listed["sanctions"].as_array().unwrap().is_empty(),
        "nothing was done"
    );

    json(&suspend(&url, &account, 1, "abuse in chat"));
    let refused = HttpApi::new(&url).unwrap().login(&id, "phone", None);
    match refused {
        Err(ClientError::Server {
            status,
            code,
            message,
        }) => {
            assert_eq!((status, code.as_str()), (403, "account_suspended"));
            assert!(message.contains("abuse in chat"), "{message}");
            // The end as a date people read ("suspended until 2026-12-07 01:23 UTC").
            assert!(
                message.contains("suspended until 20") && message.contains(" UTC: "),
                "{message}"
            );
        }
        other => panic!("a suspended player logged in: {other:?}"),
    }
}
