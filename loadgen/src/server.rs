//! The server under load: a process this run starts (so its memory and CPU are read from
//! `/proc` apart from the load generator's), or one given by address.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::args::Args;

/// The NATS prefix of this run's nodes: their checkpoints stay apart from any other's.
pub(crate) fn nats_prefix() -> String {
    format!("loadgen{}", std::process::id())
}

/// `--server-bin`, or `tongcheng-server` next to this program (where cargo builds both).
fn server_binary(args: &Args) -> Result<PathBuf, String> {
    if let Some(p) = &args.server_bin {
        return Ok(p.clone());
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let name = format!("tongcheng-server{}", std::env::consts::EXE_SUFFIX);
    let path = exe.with_file_name(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "no server binary at {} (build it: cargo build --release -p tongcheng-server; or pass --server-bin, or --server URL)",
            path.display()
        ))
    }
}

/// The server under load: a process this run started, or one given by address.
pub(crate) struct ServerProcess {
    /// `http://127.0.0.1:PORT`.
    pub(crate) url: String,
    pub(crate) pid: Option<u32>,
    child: Option<Child>,
    dir: Option<PathBuf>,
}

impl ServerProcess {
    pub(crate) fn existing(url: &str, pid: Option<u32>) -> Result<ServerProcess, String> {
        let hostport = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("'{url}' is not an http:// address"))?
            .trim_end_matches('/');
        let addr = hostport
            .to_socket_addrs()
            .map_err(|e| format!("'{url}': {e}"))?
            .find(SocketAddr::is_ipv4)
            .ok_or_else(|| format!("'{url}' has no IPv4 address"))?;
        if !addr.ip().is_loopback() {
            return Err("the load generator connects from loopback addresses: the server must listen on 127.0.0.1".into());
        }
        Ok(ServerProcess {
            url: format!("http://{addr}"),
            pid,
            child: None,
            dir: None,
        })
    }

    /// The server binary on a free loopback port, with a temporary SQLite store (unless
    /// `--database`). Node `n` of this run.
    pub(crate) fn start(args: &Args, n: usize, admin: &str) -> Result<ServerProcess, String> {
        let exe = server_binary(args)?;
        let dir =
            std::env::temp_dir().join(format!("tongcheng-loadgen-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let stderr = std::fs::File::create(dir.join("server.log")).map_err(|e| e.to_string())?;
        let database = args
            .database
            .clone()
            .unwrap_or_else(|| format!("sqlite:{}", dir.join("server.db").display()));
        let mut cmd = Command::new(&exe);
        cmd.arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--database")
            .arg(database)
            .arg("--bot-fill-ms")
            .arg(args.bot_fill_ms.to_string())
            .arg("--ready-ms")
            .arg("5000")
            .arg("--match-hands")
            .arg(args.match_hands.to_string())
            .arg("--max-tables")
            .arg((args.players / 2 + 100).to_string())
            // In the environment, not the command line others can read.
            .env("TONGCHENG_ADMIN_TOKEN", admin)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(n) = args.server_threads {
            cmd.arg("--threads").arg(n.to_string());
        }
        if let Some(nats) = &args.nats {
            cmd.arg("--nats")
                .arg(nats)
                .arg("--nats-prefix")
                .arg(nats_prefix());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout from the server")?;
        let mut lines = BufReader::new(stdout).lines();
        let first = lines
            .next()
            .and_then(Result::ok)
            .ok_or("the server printed nothing (see its log)")?;
        // Keep reading so a chatty server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let url = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .ok_or_else(|| format!("no address in '{first}'"))?;
        let mut s = ServerProcess::existing(url, Some(child.id()))?;
        s.child = Some(child);
        s.dir = Some(dir);
        Ok(s)
    }

    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if let Some(dir) = self.dir.take() {
            if let Ok(log) = std::fs::read_to_string(dir.join("server.log")) {
                let problems = problems(&log);
                if !problems.is_empty() {
                    eprintln!(
                        "tongcheng-loadgen: the server logged {} warnings, errors or panics; the last ones:",
                        problems.len()
                    );
                    for l in problems.iter().rev().take(5).rev() {
                        eprintln!("  {l}");
                    }
                }
            }
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The lines of a server's log worth showing after a run: its request lines are many and
/// routine (plain or JSON, the level is written in capitals either way).
fn problems(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR") || l.contains("panicked"))
        .collect()
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A process's resident memory in KiB (Linux `/proc`).
pub(crate) fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A process's user + system CPU seconds (Linux `/proc`, at the usual 100 ticks a second).
pub(crate) fn cpu_secs(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_servers_are_taken() {
        let s = ServerProcess::existing("http://127.0.0.1:8080/", Some(1)).unwrap();
        assert_eq!((s.url.as_str(), s.pid), ("http://127.0.0.1:8080", Some(1)));
        assert!(ServerProcess::existing("https://127.0.0.1:8080", None).is_err());
        assert!(ServerProcess::existing("http://10.1.2.3:80", None).is_err());
    }

    #[test]
    fn only_warnings_errors_and_panics_are_shown_from_the_servers_log() {
        let log = "2026-12-05T04:30:41Z  INFO request: answered status=200\n\
                   2026-12-05T04:30:42Z  WARN table: a seat timed out\n\
                   {\"level\":\"ERROR\",\"fields\":{}}\n\
                   thread 'main' panicked at server/src/main.rs:1:1\n";
        assert_eq!(problems(log).len(), 3);
        assert!(problems("").is_empty());
    }

    #[test]
    fn this_process_can_be_measured() {
        let me = std::process::id();
        assert!(rss_kb(me).is_some_and(|k| k > 0));
        assert!(cpu_secs(me).is_some());
    }
}
