//! What the workspace's tests share: a `tongcheng-server` process on a free port, killed
//! when dropped. The server prints its address on the first line of stdout; its logs (on
//! stderr) are kept to warnings unless the test's own `RUST_LOG` asks for more, and tables
//! play at machine speed (`--claim-pause-ms 0,0`) unless the test passes its own pause.

#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running `tongcheng-server`.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    url: String,
}

impl ServerProcess {
    /// Starts the server binary `server` with `args` on `127.0.0.1:0`.
    pub fn start(server: &Path, args: &[&str]) -> ServerProcess {
        ServerProcess::start_command(Command::new(server).args(args))
    }

    /// Starts a server command the caller set up (arguments, environment, stderr) on
    /// `127.0.0.1:0`, and reads the address it chose from its first line.
    pub fn start_command(command: &mut Command) -> ServerProcess {
        // Tests play at machine speed: no pause after each discard unless a test asks for one.
        if !command.get_args().any(|a| a == "--claim-pause-ms") {
            command.args(["--claim-pause-ms", "0,0"]);
        }
        let set_here = command.get_envs().any(|(k, _)| k == "RUST_LOG");
        if std::env::var_os("RUST_LOG").is_none() && !set_here {
            command.env("RUST_LOG", "warn");
        }
        let mut child = command
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server binary starts");
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no address in the server's first line {line:?}");
        };
        ServerProcess {
            url: url.to_string(),
            child,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The process, for a test that reads its stderr.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// SIGKILL: no graceful anything.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The `tongcheng-server` binary beside `bin` (another of the workspace's binaries: `cargo
/// test --workspace` builds both), if it was built.
pub fn server_beside(bin: &Path) -> Option<PathBuf> {
    let p = bin.with_file_name("tongcheng-server");
    p.exists().then_some(p)
}
