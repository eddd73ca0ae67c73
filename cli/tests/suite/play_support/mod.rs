//! Running `tongcheng play` in scripted mode from tests: whole runs with a given input, and
//! a conversation that answers each decision after reading the table.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Longest a conversation may take: past it the program is killed, so a test that waits for
/// the wrong thing fails instead of hanging the whole test run.
const WATCHDOG: Duration = Duration::from_secs(180);

pub const BIN: &str = env!("CARGO_BIN_EXE_tongcheng");

/// A fresh, empty directory for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tongcheng-play-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The binary with a clean environment of its own: HOME inside the test directory, so
/// nothing ever touches the real history.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env_remove("XDG_DATA_HOME")
        .env("LANG", "C")
        // The app's wait for a line's button: a test's wrong line fails at once.
        .env("TONGCHENG_LINE_WAIT_MS", "3000");
    c
}

/// Runs with `input` on stdin; returns the output.
pub fn run(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut child = command(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // Written from a thread: a long input must not block against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run answered decision by decision.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
    pub transcript: Vec<String>,
    done: Arc<AtomicBool>,
}

/// One decision as printed: the table block and the timeout move it states.
pub struct Asked {
    pub table: Vec<String>,
    pub on_timeout: String,
}

impl Session {
    pub fn start(dir: &Path, args: &[&str]) -> Session {
        let mut child = command(dir, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let (pid, flag) = (child.id(), done.clone());
        std::thread::spawn(move || {
            let start = Instant::now();
            while !flag.load(Ordering::SeqCst) {
                if start.elapsed() > WATCHDOG {
                    eprintln!("watchdog: killing tongcheng (pid {pid}) after {WATCHDOG:?}");
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Session {
            stdin: child.stdin.take(),
            out: BufReader::new(child.stdout.take().unwrap()),
            child,
            transcript: Vec::new(),
            done,
        }
    }

    fn line(&mut self) -> Option<String> {
        let mut s = String::new();
        match self.out.read_line(&mut s) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let s = s.trim_end_matches('\n').to_string();
                self.transcript.push(s.clone());
                Some(s)
            }
        }
    }

    /// Reads to the next printed decision; `None` once the program has ended.
    pub fn next_decision(&mut self) -> Option<Asked> {
        let mut table = Vec::new();
        loop {
            let l = self.line()?;
            if l.contains("-- hand ") {
                table.clear();
            }
            table.push(l.clone());
            if let Some(rest) = l.trim().strip_prefix("(on timeout: ") {
                return Some(Asked {
                    table,
                    on_timeout: rest.trim_end_matches(')').to_string(),
                });
            }
        }
    }

    /// Reads until a line containing `text`; the lines read, that one last (`None` once the
    /// program has ended without it).
    pub fn wait_for(&mut self, text: &str) -> Option<Vec<String>> {
        let mut seen = Vec::new();
        loop {
            let l = self.line()?;
            let found = l.contains(text);
            seen.push(l);
            if found {
                return Some(seen);
            }
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input still open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the input and reads everything left; returns the exit status's success.
    pub fn finish(mut self) -> (bool, Vec<String>) {
        self.stdin = None;
        while self.line().is_some() {}
        let ok = self.child.wait().unwrap().success();
        (ok, std::mem::take(&mut self.transcript))
    }
}

impl Drop for Session {
    /// A failed test leaves no program behind waiting for input. It is killed before its input
    /// closes: at the end of input the game plays on by itself, and a test that kills it
    /// mid-hand must find it exactly where it stopped.
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stdin = None;
    }
}

/// The signed numbers of a "score changes: You -8 · Bot 1 +24 · …" or "points: S0 -8, S1
/// +24, …" line, in seat order (a bare `0` counts, other unsigned numbers are names).
pub fn numbers(line: &str) -> Vec<i64> {
    line.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| w.starts_with('+') || w.starts_with('-') || *w == "0")
        .filter_map(|w| w.parse().ok())
        .collect()
}
