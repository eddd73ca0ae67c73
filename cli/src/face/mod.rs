//! `tongcheng play`: the terminal as a face of the app model, like the phones and the page.
//!
//! The phones' [`AppModel`] runs here unchanged — its clock, history, kept match and settings,
//! login, online tables and 同步 — and the terminal only draws each [`View`] it is given and
//! turns key presses into the buttons' taps ([`keys`]). At a terminal it is a full screen
//! (ratatui); through a pipe it prints the screen whenever what can be pressed changes and
//! reads a line per press (a key, or a button's name: `单机对战`, `五饼`, `碰`).

mod keys;
mod render;

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};
use signal_hook::consts::{SIGHUP, SIGTERM};
use tongcheng_app::{Tap, View};
use tongcheng_client::Identity;
use tongcheng_ffi::app::{AppConfig, AppModel, AppShell, HISTORY_FILE, Sound};
use tongcheng_ffi::online::KeyVault;

use crate::play::tiles::TileFace;
use keys::Keys;
use render::{Render, plain};

/// How long a typed line waits for a button it names (the bots' moves come first);
/// `TONGCHENG_LINE_WAIT_MS` sets it (tests).
fn line_wait() -> Duration {
    let ms = std::env::var("TONGCHENG_LINE_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60_000);
    Duration::from_millis(ms)
}
/// How long closing waits for the model to keep the match.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Where the face keeps its files, which server it plays on, how tiles look.
pub struct Options {
    /// The history database; the kept match, settings, device key and session lie beside it.
    pub db: PathBuf,
    pub server: Option<String>,
    pub ascii: bool,
    /// Milliseconds each move against bots stays in view (tests pass a few).
    pub pace_ms: Option<u32>,
}

enum Note {
    Draw(Box<View>),
    Sound,
}

/// The shell the model draws through: every screen and sound goes to the terminal's loop.
struct Shell(mpsc::Sender<Note>);

impl AppShell for Shell {
    fn draw(&self, view: View) {
        let _ = self.0.send(Note::Draw(Box::new(view)));
    }

    fn play_sound(&self, _sound: Sound) {
        let _ = self.0.send(Note::Sound);
    }
}

/// The device key, in the same file `tongcheng login` uses (`<db>.key`), so the terminal
/// plays as the account the command line signs in as.
struct FileVault(Identity);

impl KeyVault for FileVault {
    fn load_secret(&self) -> Option<Vec<u8>> {
        Some(self.0.secret_bytes().to_vec())
    }

    fn store_secret(&self, _secret: Vec<u8>) {}
}

pub fn run(options: Options) -> io::Result<()> {
    let (model, notes) = open(&options)?;
    let face = TileFace::choose(options.ascii);
    let interactive =
        io::IsTerminal::is_terminal(&io::stdin()) && io::IsTerminal::is_terminal(&io::stdout());
    let result = if interactive {
        full_screen(&model, &notes, face)
    } else {
        lines(
            &model,
            &notes,
            face,
            io::BufReader::new(io::stdin()),
            &mut io::stdout().lock(),
        )
    };
    close(&model, &notes);
    result
}

fn open(options: &Options) -> io::Result<(Arc<AppModel>, mpsc::Receiver<Note>)> {
    let dir = folder(&options.db)?;
    std::fs::create_dir_all(&dir)?;
    let mut key = options.db.clone().into_os_string();
    key.push(".key");
    let identity =
        Identity::load_or_create(Path::new(&key)).map_err(|e| io::Error::other(e.to_string()))?;
    let (tx, notes) = mpsc::channel();
    let config = AppConfig {
        data_dir: dir.to_string_lossy().into_owned(),
        server: options.server.clone(),
        // The command line's history dates are UTC calendar dates: the face's agree.
        utc_offset_min: 0,
        pace_ms: options.pace_ms,
    };
    let model = AppModel::new(config, Arc::new(FileVault(identity)), Arc::new(Shell(tx)))
        .map_err(|e| io::Error::other(e.to_string()))?;
    if options.server.is_some() {
        model.network(true);
    }
    Ok((model, notes))
}

/// The folder of the history: the model names its files itself, so the history must be its
/// `history.db` for `tongcheng history` and `replay` to read the same hands.
fn folder(db: &Path) -> io::Result<PathBuf> {
    if db.file_name().is_none_or(|n| n != HISTORY_FILE) {
        return Err(io::Error::other(format!(
            "the game keeps its history as {HISTORY_FILE} in a folder of its own: pass --db DIR/{HISTORY_FILE} (not {})",
            db.display()
        )));
    }
    Ok(match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    })
}

/// Ends the app as a phone's Back does at the table (the match is kept, 继续牌局 takes it up)
/// and stops its thread.
fn close(model: &AppModel, notes: &mpsc::Receiver<Note>) {
    let keys = Keys::of(&model.view());
    if let (View::Table(_), Some(back)) = (model.view(), keys.back) {
        tap(model, &back);
        let until = Instant::now() + CLOSE_WAIT;
        while matches!(model.view(), View::Table(_)) && Instant::now() < until {
            let _ = notes.recv_timeout(Duration::from_millis(20));
        }
    }
    model.shutdown();
}

fn tap(model: &AppModel, tap: &Tap) {
    // A tap of the model's own view always reads: there is nothing to report.
    if let Ok(json) = serde_json::to_string(tap) {
        let _ = model.tap(json);
    }
}

/// The full-screen game: the latest view drawn, a key press its button's tap.
fn full_screen(model: &AppModel, notes: &mpsc::Receiver<Note>, face: TileFace) -> io::Result<()> {
    // A closed terminal window (SIGHUP) or a `kill` (SIGTERM) ends the game as Ctrl-C does,
    // keeping the match; the flag is read between frames.
    let hang_up = Arc::new(AtomicBool::new(false));
    for signal in [SIGHUP, SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&hang_up))?;
    }
    let mut terminal = ratatui::try_init()?;
    let result = (|| -> io::Result<()> {
        let mut view = model.view();
        let mut scroll = 0u16;
        while !hang_up.load(Ordering::Relaxed) {
            let mut bell = false;
            while let Ok(note) = notes.try_recv() {
                match note {
                    Note::Draw(v) => {
                        if std::mem::discriminant(&*v) != std::mem::discriminant(&view) {
                            scroll = 0;
                        }
                        view = *v;
                    }
                    Note::Sound => bell = true,
                }
            }
            let keys = Keys::of(&view);
            let lines = Render { keys: &keys, face }.view(&view);
            terminal.draw(|f| {
                let area: Rect = f.area();
                let text = Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .scroll((scroll, 0));
                f.render_widget(text, area);
            })?;
            if bell {
                print!("\x07");
                io::stdout().flush()?;
            }
            if !event::poll(Duration::from_millis(100))? {
                continue;
            }
            let TermEvent::Key(k) = event::read()? else {
                continue;
            };
            if k.kind != KeyEventKind::Press {
                continue;
            }
            let pressed = match k.code {
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => break,
                KeyCode::Esc => keys.back.clone(),
                KeyCode::Backspace => keys.delete.clone(),
                KeyCode::Down | KeyCode::PageDown => {
                    scroll = scroll.saturating_add(1);
                    None
                }
                KeyCode::Up | KeyCode::PageUp => {
                    scroll = scroll.saturating_sub(1);
                    None
                }
                KeyCode::Char(c) => keys.pressed(c).cloned(),
                _ => None,
            };
            if let Some(t) = pressed {
                tap(model, &t);
            }
        }
        Ok(())
    })();
    ratatui::restore();
    result
}

/// Through a pipe: the screen printed whenever what can be pressed changes, a line read per
/// press. A line no button answers within [`line_wait`] ends the game with an error.
fn lines(
    model: &AppModel,
    notes: &mpsc::Receiver<Note>,
    face: TileFace,
    input: impl BufRead + Send + 'static,
    out: &mut impl Write,
) -> io::Result<()> {
    let (line_tx, line_rx) = mpsc::channel::<Option<String>>();
    std::thread::spawn(move || {
        for line in input.lines() {
            let Ok(line) = line else { break };
            if line_tx.send(Some(line)).is_err() {
                return;
            }
        }
        let _ = line_tx.send(None);
    });
    let wait = line_wait();
    let mut view = model.view();
    let mut shown: Option<Vec<(char, bool, String)>> = None;
    let mut pending: Option<(String, Instant)> = None;
    loop {
        let keys = Keys::of(&view);
        // The screen once per change of what can be pressed or what the buttons say: the
        // bots' moves in between are seen in the next one.
        let signature = Some(
            keys.targets
                .iter()
                .map(|t| (t.key, t.enabled, t.label.clone()))
                .collect::<Vec<_>>(),
        );
        if signature != shown {
            for l in (Render { keys: &keys, face }).view(&view) {
                writeln!(out, "{}", plain(&l))?;
            }
            writeln!(out)?;
            out.flush()?;
            shown = signature;
        }
        if let Some((line, since)) = &pending {
            if let Some(t) = keys.typed(line) {
                tap(model, t);
                pending = None;
                // The tap's screen comes next: the line after must not press the old one's.
                let until = Instant::now() + Duration::from_secs(1);
                while let Ok(note) =
                    notes.recv_timeout(until.saturating_duration_since(Instant::now()))
                {
                    if let Note::Draw(v) = note {
                        view = *v;
                        break;
                    }
                }
                continue;
            }
            if since.elapsed() > wait {
                return Err(io::Error::other(format!(
                    "no button '{line}' on this screen"
                )));
            }
        } else {
            match line_rx.try_recv() {
                Ok(Some(line)) if line.trim().is_empty() => continue,
                Ok(Some(line)) => {
                    pending = Some((line, Instant::now()));
                    continue;
                }
                Ok(None) | Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
                Err(mpsc::TryRecvError::Empty) => {}
            }
        }
        match notes.recv_timeout(Duration::from_millis(50)) {
            Ok(Note::Draw(v)) => view = *v,
            Ok(Note::Sound) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
    }
}
