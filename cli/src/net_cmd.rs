//! `tongcheng login`, `sync`, `link` and `devices`: the local history meets the server.
//!
//! The device's key lives next to the history (`history.db.key`, 0600) and the session next
//! to it (`history.db.session.json`, 0600), so each history file is one device. A command
//! that needs a session logs in by itself when there is none (or it is for another server,
//! or the server no longer takes it).

use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;
use tongcheng_client::{ClientError, HttpApi, Identity, Session, SyncOptions};
use tongcheng_core::history::HistoryStore;

use crate::history_cmd::db_path;

#[derive(clap::Args)]
pub struct ServerArgs {
    /// The server, e.g. http://127.0.0.1:8080.
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// The history database (default as for `tongcheng history`); its device key and
    /// session are kept next to it.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct LinkArgs {
    /// Join the account that showed this code (run on the new device). Without it, print a
    /// code for another device to join this one's account.
    #[arg(value_name = "CODE")]
    pub code: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(clap::Args)]
pub struct DevicesArgs {
    /// Revoke the device with this id instead of listing.
    #[arg(long, value_name = "ID")]
    pub revoke: Option<i64>,
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Where a history's key and session live.
struct Files {
    db: PathBuf,
    key: PathBuf,
    session: PathBuf,
}

impl Files {
    fn of(db: Option<PathBuf>) -> io::Result<Files> {
        let db = db_path(db)?;
        if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let beside = |suffix: &str| {
            let mut name = db.file_name().unwrap_or_default().to_os_string();
            name.push(suffix);
            db.with_file_name(name)
        };
        Ok(Files {
            key: beside(".key"),
            session: beside(".session.json"),
            db,
        })
    }
}

fn err(e: ClientError) -> io::Error {
    io::Error::other(e.to_string())
}

const DEVICE_NAME: &str = "tongcheng-cli";

/// Logs in (joining `link_code`'s account if given) and saves the session.
fn login(api: &mut HttpApi, files: &Files, link_code: Option<&str>) -> io::Result<(Session, bool)> {
    let identity = Identity::load_or_create(&files.key).map_err(err)?;
    let r = api.login(&identity, DEVICE_NAME, link_code).map_err(err)?;
    let session = Session {
        server: api.base().to_string(),
        token: r.token,
        account_id: r.account.id,
        display_name: r.account.display_name,
        device_id: r.device_id,
    };
    session.save(&files.session).map_err(err)?;
    Ok((session, r.created_account))
}

/// An API client with a session: the saved one for this server, else a fresh login.
fn connect(server: &str, files: &Files) -> io::Result<(HttpApi, Session)> {
    let mut api = HttpApi::new(server).map_err(err)?;
    if let Some(s) = Session::load(&files.session).filter(|s| s.server == api.base()) {
        api.set_token(Some(s.token.clone()));
        return Ok((api, s));
    }
    let (s, _) = login(&mut api, files, None)?;
    Ok((api, s))
}

/// Runs `f` with a session, logging in again once if the server no longer takes it.
fn with_session<T>(
    server: &str,
    files: &Files,
    mut f: impl FnMut(&HttpApi) -> Result<T, ClientError>,
) -> io::Result<T> {
    let (mut api, _) = connect(server, files)?;
    match f(&api) {
        Err(e) if e.is_unauthorized() => {
            Session::forget(&files.session);
            login(&mut api, files, None)?;
            f(&api).map_err(err)
        }
        r => r.map_err(err),
    }
}

/// Runs `f` with a session for `args.server` (kept beside `args.db`'s history), logging in
/// when there is none or the server no longer takes it.
pub(crate) fn call<T>(
    args: &ServerArgs,
    f: impl FnMut(&HttpApi) -> Result<T, ClientError>,
) -> io::Result<T> {
    let files = Files::of(args.db.clone())?;
    with_session(&args.server, &files, f)
}

/// The history file and a session token for `server` (logging in when there is none), for
/// online play; `fresh` forgets a saved session the server no longer takes.
pub fn play_session(
    server: &str,
    db: Option<PathBuf>,
    fresh: bool,
) -> io::Result<(PathBuf, String)> {
    let files = Files::of(db)?;
    if fresh {
        Session::forget(&files.session);
    }
    let (_, s) = connect(server, &files)?;
    Ok((files.db, s.token))
}

pub fn run_login(args: ServerArgs) -> io::Result<()> {
    let files = Files::of(args.db)?;
    let mut api = HttpApi::new(&args.server).map_err(err)?;
    let (s, created) = login(&mut api, &files, None)?;
    println!(
        "{}",
        json!({"account_id": s.account_id, "display_name": s.display_name,
               "device_id": s.device_id, "created_account": created})
    );
    Ok(())
}

pub fn run_sync(args: ServerArgs) -> io::Result<()> {
    let files = Files::of(args.db)?;
    // Opened before the network is touched: a history that cannot be used stops here.
    let mut store = open_history(&files.db)?;
    // Safe to run again after a refused session: what was done stays done.
    let report = with_session(&args.server, &files, |api| {
        tongcheng_client::sync(&mut store, api, &SyncOptions::default())
    })?;
    println!(
        "{}",
        serde_json::to_string(&report).map_err(io::Error::other)?
    );
    Ok(())
}

fn open_history(path: &Path) -> io::Result<HistoryStore> {
    HistoryStore::open(path)
        .map_err(|e| io::Error::other(format!("history {}: {e}", path.display())))
}

pub fn run_link(args: LinkArgs) -> io::Result<()> {
    let files = Files::of(args.server.db)?;
    match args.code {
        Some(code) => {
            let mut api = HttpApi::new(&args.server.server).map_err(err)?;
            let (s, _) = login(&mut api, &files, Some(&code))?;
            println!(
                "{}",
                json!({"account_id": s.account_id, "display_name": s.display_name,
                       "device_id": s.device_id, "linked": true})
            );
        }
        None => {
            let code = with_session(&args.server.server, &files, |api| api.create_link())?;
            println!("{}", code.code);
            eprintln!(
                "On the other device, within {} minutes: tongcheng link {} --server {}",
                code.expires_in / 60,
                code.code,
                args.server.server
            );
        }
    }
    Ok(())
}

pub fn run_devices(args: DevicesArgs) -> io::Result<()> {
    let files = Files::of(args.server.db)?;
    match args.revoke {
        Some(id) => {
            with_session(&args.server.server, &files, |api| api.revoke_device(id))?;
            println!("{}", json!({"revoked": id}));
        }
        None => {
            let devices = with_session(&args.server.server, &files, |api| api.devices())?;
            println!("{}", json!({"devices": devices}));
        }
    }
    Ok(())
}
