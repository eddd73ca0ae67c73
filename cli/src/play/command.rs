//! The move language of scripted play: one move a line, checked against the pending decision.
//!
//! `discard 5m` (or just `5m`), `chow` / `chow 3p` (the chow's lowest tile), `pung`, `kong`
//! (on a discard, or the only kong on offer) / `kong 5m` (concealed or added), `pass`, `win`,
//! `hint`, `table`, `help`, `quit`. Blank lines and `#` comments are skipped.

use tongcheng_core::game::{Action, Decision, DecisionKind};
use tongcheng_core::tile::Tile;

/// One parsed line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Discard(Tile),
    Chow(Option<Tile>),
    Pung,
    Kong(Option<Tile>),
    Pass,
    Win,
    Hint,
    Table,
    Help,
    Quit,
}

pub const HELP: &str = "moves: discard 5m (or 5m) · chow [3p] · pung · kong [5m] · pass · win · \
                        hint · table · help · quit";

/// Parses a line; `Ok(None)` for a blank line or a comment.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(None);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let verb = words[0].to_ascii_lowercase();
    let arg = words.get(1).copied();
    if words.len() > 2 {
        return Err(format!("'{line}': too many words ({HELP})"));
    }
    let tile = |what: &str| -> Result<Tile, String> {
        let Some(a) = arg else {
            return Err(format!("'{line}': {what} needs a tile, e.g. '{what} 5m'"));
        };
        a.parse::<Tile>()
            .map_err(|e| format!("'{line}': '{a}' is not a tile ({e})"))
    };
    let optional_tile = || -> Result<Option<Tile>, String> {
        arg.map(|a| {
            a.parse::<Tile>()
                .map_err(|e| format!("'{line}': '{a}' is not a tile ({e})"))
        })
        .transpose()
    };
    let no_arg = |c: Command| -> Result<Option<Command>, String> {
        match arg {
            Some(a) => Err(format!("'{line}': {verb} takes no tile ('{a}')")),
            None => Ok(Some(c)),
        }
    };
    match verb.as_str() {
        "discard" | "d" => tile("discard").map(|t| Some(Command::Discard(t))),
        "chow" | "c" => optional_tile().map(|t| Some(Command::Chow(t))),
        "kong" | "k" => optional_tile().map(|t| Some(Command::Kong(t))),
        "pung" | "p" => no_arg(Command::Pung),
        "pass" | "x" => no_arg(Command::Pass),
        "win" | "w" | "hu" => no_arg(Command::Win),
        "hint" | "h" => no_arg(Command::Hint),
        "table" | "t" => no_arg(Command::Table),
        "help" | "?" => no_arg(Command::Help),
        "quit" | "q" => no_arg(Command::Quit),
        _ if words.len() == 1 && verb.parse::<Tile>().is_ok() => {
            Ok(verb.parse::<Tile>().ok().map(Command::Discard))
        }
        _ => Err(format!("'{line}' is not a move ({HELP})")),
    }
}

/// A move in the same words [`parse`] reads, so anything printed can be typed back.
pub fn action_text(a: Action) -> String {
    match a {
        Action::Discard(t) => format!("discard {t}"),
        Action::Chow(t) => format!("chow {t}"),
        Action::Pung => "pung".into(),
        Action::Kong => "kong".into(),
        Action::ConcealedKong(t) | Action::AddedKong(t) => format!("kong {t}"),
        Action::Win => "win".into(),
        Action::Pass => "pass".into(),
    }
}

/// Every legal move in words, discards folded into one item.
pub fn legal_text(d: &Decision) -> String {
    let mut items: Vec<String> = Vec::new();
    let discards: Vec<String> = d
        .legal
        .iter()
        .filter_map(|a| match a {
            Action::Discard(t) => Some(t.to_string()),
            _ => None,
        })
        .collect();
    if !discards.is_empty() {
        items.push(format!("discard {}", discards.join(" ")));
    }
    for a in &d.legal {
        if !matches!(a, Action::Discard(_)) {
            items.push(action_text(*a));
        }
    }
    items.join(" · ")
}

/// The action a move stands for in this decision, or why it is not possible.
pub fn resolve(cmd: Command, d: &Decision) -> Result<Action, String> {
    let legal = |a: Action| d.legal.contains(&a);
    let on_turn = d.kind == DecisionKind::Turn;
    let why_not = |what: &str| {
        let situation = match d.kind {
            DecisionKind::Turn => "it is your turn".to_string(),
            DecisionKind::Claim { tile } => format!("{tile} was just discarded"),
            DecisionKind::RobKong { tile } => format!("a kong of {tile} is being declared"),
        };
        format!(
            "{what} is not possible now: {situation}; you may: {}",
            legal_text(d)
        )
    };
    match cmd {
        Command::Discard(t) => {
            if legal(Action::Discard(t)) {
                Ok(Action::Discard(t))
            } else if on_turn {
                Err(format!(
                    "you cannot discard {t}: you hold no {t}; you may: {}",
                    legal_text(d)
                ))
            } else {
                Err(why_not(&format!("discard {t}")))
            }
        }
        Command::Chow(Some(t)) => {
            if legal(Action::Chow(t)) {
                Ok(Action::Chow(t))
            } else {
                Err(why_not(&format!("chow {t}")))
            }
        }
        Command::Chow(None) => {
            let chows: Vec<Action> = d
                .legal
                .iter()
                .copied()
                .filter(|a| matches!(a, Action::Chow(_)))
                .collect();
            match chows.as_slice() {
                [] => Err(why_not("chow")),
                [one] => Ok(*one),
                many => Err(format!(
                    "several chows are possible, say which: {}",
                    many.iter()
                        .map(|a| action_text(*a))
                        .collect::<Vec<_>>()
                        .join(" · ")
                )),
            }
        }
        Command::Pung => legal(Action::Pung)
            .then_some(Action::Pung)
            .ok_or_else(|| why_not("pung")),
        Command::Kong(t) => {
            let kongs: Vec<Action> = d
                .legal
                .iter()
                .copied()
                .filter(|a| match (a, t) {
                    (Action::Kong, None) => true,
                    (Action::Kong, Some(t)) => {
                        matches!(d.kind, DecisionKind::Claim { tile } if tile == t)
                    }
                    (Action::ConcealedKong(k) | Action::AddedKong(k), t) => {
                        t.is_none_or(|t| *k == t)
                    }
                    _ => false,
                })
                .collect();
            match kongs.as_slice() {
                [] => Err(why_not(
                    &t.map_or("kong".to_string(), |t| format!("kong {t}")),
                )),
                [one] => Ok(*one),
                many => Err(format!(
                    "several kongs are possible, say which: {}",
                    many.iter()
                        .map(|a| action_text(*a))
                        .collect::<Vec<_>>()
                        .join(" · ")
                )),
            }
        }
        Command::Pass => {
            if legal(Action::Pass) {
                Ok(Action::Pass)
            } else {
                Err(format!(
                    "you cannot pass: it is your turn, discard a tile; you may: {}",
                    legal_text(d)
                ))
            }
        }
        Command::Win => legal(Action::Win).then_some(Action::Win).ok_or_else(|| {
            format!(
                "you cannot win now (no complete hand worth the minimum); you may: {}",
                legal_text(d)
            )
        }),
        Command::Hint | Command::Table | Command::Help | Command::Quit => {
            Err("not a move on the table".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }

    fn turn(legal: Vec<Action>) -> Decision {
        Decision {
            kind: DecisionKind::Turn,
            on_timeout: legal[0],
            legal,
            limit_secs: 15,
        }
    }

    fn claim(tile: &str, legal: Vec<Action>) -> Decision {
        Decision {
            kind: DecisionKind::Claim { tile: t(tile) },
            legal,
            limit_secs: 3,
            on_timeout: Action::Pass,
        }
    }

    #[test]
    fn parses_every_move() {
        assert_eq!(parse("discard 5m"), Ok(Some(Command::Discard(t("5m")))));
        assert_eq!(parse("  DISCARD 7z  "), Ok(Some(Command::Discard(t("7z")))));
        assert_eq!(parse("5p"), Ok(Some(Command::Discard(t("5p")))));
        assert_eq!(parse("chow"), Ok(Some(Command::Chow(None))));
        assert_eq!(parse("chow 3p"), Ok(Some(Command::Chow(Some(t("3p"))))));
        assert_eq!(parse("pung"), Ok(Some(Command::Pung)));
        assert_eq!(parse("kong"), Ok(Some(Command::Kong(None))));
        assert_eq!(
            parse("kong 5m # the concealed one"),
            Ok(Some(Command::Kong(Some(t("5m")))))
        );
        assert_eq!(parse("pass"), Ok(Some(Command::Pass)));
        assert_eq!(parse("win"), Ok(Some(Command::Win)));
        assert_eq!(parse("hint"), Ok(Some(Command::Hint)));
        assert_eq!(parse("quit"), Ok(Some(Command::Quit)));
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("   "), Ok(None));
        assert_eq!(parse("# a comment"), Ok(None));
    }

    #[test]
    fn garbage_is_an_error_with_a_reason() {
        for bad in [
            "dance",
            "discard",
            "discard 0m",
            "discard 5x",
            "pung 5m",
            "chow 3p 4p",
            "\u{0}",
            "5",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(!e.is_empty(), "{bad}");
        }
        assert!(parse("discard 5q").unwrap_err().contains("not a tile"));
    }

    #[test]
    fn moves_resolve_against_the_decision() {
        let d = turn(vec![
            Action::ConcealedKong(t("5m")),
            Action::Discard(t("1m")),
            Action::Discard(t("5m")),
        ]);
        assert_eq!(
            resolve(Command::Discard(t("1m")), &d),
            Ok(Action::Discard(t("1m")))
        );
        assert!(
            resolve(Command::Discard(t("9p")), &d)
                .unwrap_err()
                .contains("hold no 9p")
        );
        assert_eq!(
            resolve(Command::Kong(None), &d),
            Ok(Action::ConcealedKong(t("5m")))
        );
        assert_eq!(
            resolve(Command::Kong(Some(t("5m"))), &d),
            Ok(Action::ConcealedKong(t("5m")))
        );
        assert!(resolve(Command::Kong(Some(t("1m"))), &d).is_err());
        assert!(
            resolve(Command::Pass, &d)
                .unwrap_err()
                .contains("your turn")
        );
        assert!(resolve(Command::Win, &d).is_err());
        assert!(resolve(Command::Pung, &d).is_err());

        let c = claim(
            "4p",
            vec![
                Action::Chow(t("2p")),
                Action::Chow(t("3p")),
                Action::Pung,
                Action::Kong,
                Action::Pass,
            ],
        );
        assert!(
            resolve(Command::Chow(None), &c)
                .unwrap_err()
                .contains("chow 2p · chow 3p")
        );
        assert_eq!(
            resolve(Command::Chow(Some(t("3p"))), &c),
            Ok(Action::Chow(t("3p")))
        );
        assert!(resolve(Command::Chow(Some(t("4p"))), &c).is_err());
        assert_eq!(resolve(Command::Kong(None), &c), Ok(Action::Kong));
        assert_eq!(resolve(Command::Kong(Some(t("4p"))), &c), Ok(Action::Kong));
        assert_eq!(resolve(Command::Pass, &c), Ok(Action::Pass));
        assert!(
            resolve(Command::Discard(t("4p")), &c)
                .unwrap_err()
                .contains("just discarded")
        );
    }

    #[test]
    fn printed_moves_parse_back() {
        let d = turn(vec![Action::AddedKong(t("3s")), Action::Discard(t("3s"))]);
        for a in &d.legal {
            let cmd = parse(&action_text(*a)).unwrap().unwrap();
            assert_eq!(resolve(cmd, &d), Ok(*a));
        }
        assert_eq!(legal_text(&d), "discard 3s · kong 3s");
    }
}
