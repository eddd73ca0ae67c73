//! Records: the replayable account of a finished hand, and the contract a server verifies.
//!
//! A record holds the rules, the seed, the seats, every action in order, and what happened
//! (every event and the result). It is a contract between builds and between a phone and a
//! server, so:
//!
//! - it has a **content id** ([`RecordId`]): SHA-256 over the setup and the actions, the
//!   things that fix a hand; the same hand uploaded twice has the same id;
//! - it is **versioned with an upgrade chain** ([`HandRecord::from_json`] reads every version
//!   this project ever wrote and upgrades it step by step, like the history's migrations);
//! - fans are kept by **stable keys** (scorer + id), names are looked up only for display;
//! - unknown fields are an error, since a field this build does not know could change meaning;
//! - a [`Verifier`] accepts only the rule sets it is told to: a record whose rules are named
//!   after a preset must carry exactly that preset's fields, and anything else is refused
//!   unless custom rules are allowed. It then re-runs the actions through the engine and checks
//!   every event and the result; a record that differs is rejected with the first difference.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::fair::{FairWall, FairnessError};
use crate::game::{Action, Event, Game, HandResult, HandSetup, Scorer, WinScore};
use crate::hex::hex;
use crate::rules::{Piao, RuleSet};
use crate::score::hangzhou;
use crate::seat::Seat;

/// The record format this build writes.
pub const RECORD_VERSION: u32 = 2;

/// The largest record text [`HandRecord::from_json`] reads. A real hand is 10–30 KB.
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// One action as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedAction {
    pub seat: Seat,
    pub action: Action,
}

/// A record's content id: 64 lowercase hex digits of SHA-256 over the hand's setup and
/// actions (see [`RecordId::of`]). Two records with the same id are the same hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RecordId(String);

impl RecordId {
    /// The id of the hand dealt from `setup` and played by `actions`.
    ///
    /// The hashed bytes are fixed here, not left to a serializer: a domain tag, the rules as
    /// JSON (fields in declaration order, so stable for a given rule set), the seed, dealer,
    /// prevalent wind and dealer level, then three bytes per action (seat, kind, tile).
    pub fn of(setup: &HandSetup, actions: &[RecordedAction]) -> RecordId {
        let mut h = Sha256::new();
        h.update(b"tongcheng hand record\n");
        h.update(serde_json::to_vec(&setup.rules).expect("rules serialize"));
        h.update(b"\n");
        h.update(setup.seed.0);
        h.update([
            setup.dealer.0,
            setup.prevalent.index() as u8,
            setup.dealer_level,
        ]);
        h.update((actions.len() as u64).to_le_bytes());
        for a in actions {
            let (kind, tile) = action_code(a.action);
            h.update([a.seat.0, kind, tile]);
        }
        RecordId(hex(&h.finalize()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses 64 hex digits (either case; kept lowercase).
    pub fn parse(s: &str) -> Result<RecordId, String> {
        if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(RecordId(s.to_ascii_lowercase()))
        } else {
            Err(format!("'{}' is not a record id (64 hex digits)", clip(s)))
        }
    }
}

impl std::fmt::Display for RecordId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RecordId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RecordId, D::Error> {
        let s = String::deserialize(d)?;
        RecordId::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// An action as two bytes for hashing: its kind and its tile (0xFF when it has none).
fn action_code(a: Action) -> (u8, u8) {
    let t = |t: crate::tile::Tile| t.index() as u8;
    match a {
        Action::Discard(x) => (1, t(x)),
        Action::Chow(x) => (2, t(x)),
        Action::Pung => (3, 0xFF),
        Action::Kong => (4, 0xFF),
        Action::ConcealedKong(x) => (5, t(x)),
        Action::AddedKong(x) => (6, t(x)),
        Action::Win => (7, 0xFF),
        Action::Pass => (8, 0xFF),
    }
}

/// A finished hand, replayable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandRecord {
    pub version: u32,
    /// The content id; [`Verifier::verify`] checks it against the setup and actions.
    pub id: RecordId,
    pub setup: HandSetup,
    pub actions: Vec<RecordedAction>,
    pub events: Vec<Event>,
    pub result: HandResult,
    /// Online hands: the proof that nobody chose the wall (commitment, contributions,
    /// reveal). Absent from offline records, which are then written exactly as before, so
    /// the format version and the content id are unchanged; the verifier checks it when
    /// present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<FairWall>,
}

/// Why a record text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("the record is {0} bytes, more than the {MAX_RECORD_BYTES} a hand can take")]
    TooLarge(usize),
    #[error("not a hand record: {0}")]
    Malformed(String),
    #[error("record version {0} is newer than this build reads ({RECORD_VERSION})")]
    Newer(u64),
    #[error("record version {version} cannot be upgraded: {reason}")]
    Upgrade { version: u64, reason: String },
}

/// Why a record was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("record version {0} is not supported (this build reads version {RECORD_VERSION})")]
    Version(u32),
    #[error("the record's id {recorded} does not match its content ({computed})")]
    Id { recorded: String, computed: String },
    #[error("rules '{name}' are not accepted here (accepted: {accepted})")]
    RulesNotAccepted { name: String, accepted: String },
    #[error("the rules differ from the {name} preset (version {version}): {differences}")]
    RulesDiffer {
        name: String,
        version: u32,
        differences: String,
    },
    #[error("the rules differ from those the table announced: {differences}")]
    NotAnnounced { differences: String },
    #[error("action {index} ({seat}: {action:?}) is refused by the engine: {reason}")]
    Illegal {
        index: usize,
        seat: Seat,
        action: Action,
        reason: String,
    },
    #[error("the actions end at {0} but the hand is not over")]
    Unfinished(usize),
    #[error("the hand ended before action {0}")]
    TrailingActions(usize),
    #[error("event {index} differs: the record says {recorded}, the replay gives {replayed}")]
    EventDiffers {
        index: usize,
        recorded: String,
        replayed: String,
    },
    #[error("the record has {recorded} events, the replay {replayed}")]
    EventCount { recorded: usize, replayed: usize },
    #[error("the stated result differs from the replay's: {0}")]
    ResultDiffers(String),
    #[error("the record's setup is impossible: {0}")]
    BadSetup(String),
    #[error("the wall is not the one committed: {0}")]
    Unfair(FairnessError),
}

impl HandRecord {
    /// The record of a finished game; `None` while the hand is still being played.
    pub fn of(game: &Game) -> Option<HandRecord> {
        let result = game.result()?.clone();
        let actions: Vec<RecordedAction> = game
            .actions()
            .iter()
            .map(|&(seat, action)| RecordedAction { seat, action })
            .collect();
        Some(HandRecord {
            version: RECORD_VERSION,
            id: RecordId::of(game.setup(), &actions),
            result,
            setup: game.setup().clone(),
            actions,
            events: game.events().to_vec(),
            fairness: None,
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("records serialize")
    }

    /// Reads a record of any version this project has written, upgrading older ones to
    /// [`RECORD_VERSION`]. Sizes are bounded and unknown fields refused; the content is not
    /// checked here (see [`Verifier::verify`]).
    pub fn from_json(s: &str) -> Result<HandRecord, RecordError> {
        if s.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLarge(s.len()));
        }
        // A record of this version reads straight into the types (the server verifies
        // thousands a second; the JSON tree below was most of that cost). Anything else —
        // an older version to upgrade, or an error to explain — takes the tree.
        if let Ok(r) = serde_json::from_str::<HandRecord>(s)
            && r.version == RECORD_VERSION
        {
            return Ok(r);
        }
        let mut v: Value =
            serde_json::from_str(s).map_err(|e| RecordError::Malformed(e.to_string()))?;
        let version = v
            .get("version")
            .and_then(Value::as_u64)
            .ok_or_else(|| RecordError::Malformed("no version number".into()))?;
        // The upgrade chain: each step takes version k to k + 1; steps are never edited.
        let mut at = version;
        while at < u64::from(RECORD_VERSION) {
            let step = UPGRADES
                .get(at.saturating_sub(1) as usize)
                .filter(|_| at >= 1)
                .ok_or(RecordError::Upgrade {
                    version,
                    reason: format!("version {at} was never written"),
                })?;
            step(&mut v).map_err(|reason| RecordError::Upgrade { version, reason })?;
            at += 1;
            v["version"] = at.into();
        }
        if at > u64::from(RECORD_VERSION) {
            return Err(RecordError::Newer(at));
        }
        serde_json::from_value(v).map_err(|e| RecordError::Malformed(e.to_string()))
    }
}

/// Upgrade steps: `UPGRADES[k]` takes a record from version `k + 1` to `k + 2`.
const UPGRADES: &[Upgrade] = &[upgrade_v1];

/// One step of the upgrade chain: rewrites a record's JSON in place.
type Upgrade = fn(&mut Value) -> Result<(), String>;

/// v1 → v2: the minimum moves into the Chinese Official options; fan lines lose their names
/// and gain their scorer (v1 Hangzhou ids were list positions, so they are found by name);
/// the content id is added.
fn upgrade_v1(v: &mut Value) -> Result<(), String> {
    let rules = v
        .pointer_mut("/setup/rules")
        .and_then(Value::as_object_mut)
        .ok_or("no rules")?;
    let min = rules.remove("min_points");
    let hangzhou = rules.contains_key("scoring");
    if let (Some(min), false) = (min, hangzhou) {
        let mcr = rules
            .entry("mcr")
            .or_insert_with(|| Value::Object(Default::default()));
        mcr.as_object_mut()
            .ok_or("mcr options are not an object")?
            .insert("min_points".into(), min);
    }
    if let Some(fans) = v
        .pointer_mut("/result/score/fans")
        .and_then(Value::as_array_mut)
    {
        for f in fans {
            let f = f.as_object_mut().ok_or("a fan line is not an object")?;
            let name = f.remove("name");
            f.remove("en");
            let scorer = if hangzhou {
                let name = name.as_ref().and_then(Value::as_str).unwrap_or("");
                let id = hangzhou::element_id(
                    name_to_key(name)
                        .ok_or_else(|| format!("'{}' is not a Hangzhou element", clip(name)))?,
                );
                f.insert("id".into(), id.into());
                Scorer::Hangzhou
            } else {
                Scorer::Mcr
            };
            f.insert("scorer".into(), scorer.name().into());
        }
    }
    let setup: HandSetup = serde_json::from_value(v["setup"].clone()).map_err(|e| e.to_string())?;
    let actions: Vec<RecordedAction> =
        serde_json::from_value(v["actions"].clone()).map_err(|e| e.to_string())?;
    v["id"] = RecordId::of(&setup, &actions).as_str().into();
    Ok(())
}

/// The key of the Hangzhou element with Chinese name `zh`.
fn name_to_key(zh: &str) -> Option<&'static str> {
    hangzhou::ELEMENTS.iter().find(|e| e.1 == zh).map(|e| e.0)
}

/// At most 40 characters of `s`, for error messages about untrusted text.
fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(40).collect();
    if c.len() < s.len() {
        c.push('…');
    }
    c
}

/// Which records a reader accepts: the rule sets (by preset) and whether custom rules are
/// allowed. A server accepts its own tables' presets only; local history accepts any preset.
#[derive(Clone, Debug)]
pub struct Verifier {
    presets: Vec<RuleSet>,
    custom: bool,
    any_match_length: bool,
    /// A table's own rules as it announced them: records must play exactly these.
    announced: Option<RuleSet>,
}

impl Verifier {
    /// Accepts every preset this build offers (at this build's versions), no custom rules.
    pub fn any_preset() -> Verifier {
        Verifier::presets(RuleSet::preset_names()).expect("the build's presets exist")
    }

    /// Accepts only the named presets (each Tongcheng one also with 飘 chosen before every
    /// hand, `…-piao`: the same rules with a stake the seats pick); an unknown name is an
    /// error.
    pub fn presets(names: &[&str]) -> Result<Verifier, String> {
        let mut presets: Vec<RuleSet> = names
            .iter()
            .map(|n| RuleSet::preset(n).ok_or_else(|| format!("no preset named '{n}'")))
            .collect::<Result<_, _>>()?;
        let with_piao: Vec<RuleSet> = presets
            .iter()
            .filter_map(|p| p.clone().with_piao_each_hand())
            .filter(|p| !presets.iter().any(|q| q.name == p.name))
            .collect();
        presets.extend(with_piao);
        Ok(Verifier {
            presets,
            custom: false,
            any_match_length: false,
            announced: None,
        })
    }

    /// Also accepts rule sets not named after a preset, as long as they are playable.
    pub fn allow_custom(mut self) -> Verifier {
        self.custom = true;
        self
    }

    /// Also accepts a preset played over a match of another length (a server's
    /// `--match-hands`): how many hands the match has is not a rule of the hand. An online
    /// seat's fairness check, the local history and the server's upload check use this.
    pub fn any_match_length(mut self) -> Verifier {
        self.any_match_length = true;
        self
    }

    /// Accepts exactly `rules` — a table's own, as it announced them when the player sat down
    /// (a private room's hands and time limits on a preset keep the preset's name) — and
    /// nothing else: a record of other rules is refused with what differs. 飘 chosen each
    /// hand is the hand's, not a rule change.
    pub fn announced(mut self, rules: RuleSet) -> Verifier {
        self.announced = Some(rules);
        self
    }

    /// Checks the record's rules and setup, then re-plays it: the id, every event and the
    /// result must come out the same. Returns the replayed game.
    pub fn verify(&self, record: &HandRecord) -> Result<Game, ReplayError> {
        if record.version != RECORD_VERSION {
            return Err(ReplayError::Version(record.version));
        }
        let computed = RecordId::of(&record.setup, &record.actions);
        if computed != record.id {
            return Err(ReplayError::Id {
                recorded: record.id.to_string(),
                computed: computed.to_string(),
            });
        }
        self.check_rules(&record.setup.rules)?;
        check_setup(&record.setup)?;
        if let Some(f) = &record.fairness {
            f.check(&record.setup.seed).map_err(ReplayError::Unfair)?;
        }
        replay_checked(record)
    }

    fn check_rules(&self, rules: &RuleSet) -> Result<(), ReplayError> {
        if let Some(announced) = &self.announced {
            let mut compared = rules.clone();
            if let (Piao::Chosen(p), Piao::Chosen(_)) = (announced.piao, rules.piao) {
                compared.piao = Piao::Chosen(p);
            }
            if compared != *announced {
                return Err(ReplayError::NotAnnounced {
                    differences: rule_differences(announced, &compared).join("; "),
                });
            }
            return rules
                .validate()
                .map_err(|e| ReplayError::BadSetup(e.to_string()));
        }
        let accepted = || {
            let mut names: Vec<&str> = self.presets.iter().map(|p| p.name.as_str()).collect();
            if self.custom {
                names.push("custom rules");
            }
            names.join(", ")
        };
        if let Some(preset) = self.presets.iter().find(|p| p.name == rules.name) {
            if preset.version != rules.version {
                return Err(ReplayError::RulesNotAccepted {
                    name: format!("{} version {}", rules.name, rules.version),
                    accepted: format!("{} version {}", preset.name, preset.version),
                });
            }
            // 飘 chosen each hand: the seats' choices are this hand's, not a rule change.
            let mut same_choices;
            let compared = match (preset.piao, rules.piao) {
                (Piao::Chosen(p), Piao::Chosen(_)) => {
                    rules
                        .validate()
                        .map_err(|e| ReplayError::BadSetup(e.to_string()))?;
                    same_choices = rules.clone();
                    same_choices.piao = Piao::Chosen(p);
                    &same_choices
                }
                _ => rules,
            };
            let mut same_length;
            let compared = if self.any_match_length {
                same_length = compared.clone();
                same_length.rounds = preset.rounds;
                same_length.hands_per_round = preset.hands_per_round;
                &same_length
            } else {
                compared
            };
            // Equal rules have no differences: the field-by-field comparison (through JSON)
            // is for naming them, and every record of an unchanged preset skips it.
            if compared == preset {
                return Ok(());
            }
            let differences = rule_differences(preset, compared);
            if !differences.is_empty() {
                return Err(ReplayError::RulesDiffer {
                    name: preset.name.clone(),
                    version: preset.version,
                    differences: differences.join("; "),
                });
            }
            return Ok(());
        }
        // A preset's name this verifier does not accept, or a made-up name without custom
        // rules allowed: refused by name.
        if !self.custom || RuleSet::preset(&rules.name).is_some() {
            return Err(ReplayError::RulesNotAccepted {
                name: clip(&rules.name),
                accepted: accepted(),
            });
        }
        rules
            .validate()
            .map_err(|e| ReplayError::BadSetup(e.to_string()))
    }
}

/// Re-plays a record against any preset this build offers, over a match of any length (local
/// history, replays): a hand of a four-hand 好友房 or of a server's `--match-hands` is the
/// player's hand as much as any other. See [`Verifier::verify`].
pub fn replay(record: &HandRecord) -> Result<Game, ReplayError> {
    Verifier::any_preset().any_match_length().verify(record)
}

/// The setup's own consistency: playable rules, a real dealer, a dealer level the rules have.
/// What must hold before a game is built from a setup read from outside.
pub fn check_setup(setup: &HandSetup) -> Result<(), ReplayError> {
    setup
        .rules
        .validate()
        .map_err(|e| ReplayError::BadSetup(e.to_string()))?;
    if setup.dealer.0 > 3 {
        return Err(ReplayError::BadSetup(format!(
            "dealer seat {} (seats are 0–3)",
            setup.dealer.0
        )));
    }
    if setup.dealer_level > setup.rules.dealer_max_level {
        return Err(ReplayError::BadSetup(format!(
            "dealer level {} under rules whose highest level is {}",
            setup.dealer_level, setup.rules.dealer_max_level
        )));
    }
    Ok(())
}

/// Field by field, where `rules` differs from `preset`: "mcr.min_points 0 (preset: 8)".
pub fn rule_differences(preset: &RuleSet, rules: &RuleSet) -> Vec<String> {
    let a = serde_json::to_value(preset).expect("rules serialize");
    let b = serde_json::to_value(rules).expect("rules serialize");
    let mut out = Vec::new();
    diff_values("", &a, &b, &mut out);
    out
}

fn diff_values(path: &str, preset: &Value, got: &Value, out: &mut Vec<String>) {
    match (preset, got) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let null = Value::Null;
                diff_values(
                    &p,
                    a.get(k).unwrap_or(&null),
                    b.get(k).unwrap_or(&null),
                    out,
                );
            }
        }
        (a, b) if a != b => out.push(format!(
            "{path} {} (preset: {})",
            if b.is_null() {
                "absent".into()
            } else {
                b.to_string()
            },
            if a.is_null() {
                "absent".into()
            } else {
                a.to_string()
            }
        )),
        _ => {}
    }
}

/// Re-runs the actions of a record whose rules and setup were checked.
fn replay_checked(record: &HandRecord) -> Result<Game, ReplayError> {
    let mut game = Game::new(record.setup.clone());
    for (index, a) in record.actions.iter().enumerate() {
        if game.is_finished() {
            return Err(ReplayError::TrailingActions(index));
        }
        game.apply(a.seat, a.action)
            .map_err(|e| ReplayError::Illegal {
                index,
                seat: a.seat,
                action: a.action,
                reason: e.to_string(),
            })?;
    }
    if !game.is_finished() {
        return Err(ReplayError::Unfinished(record.actions.len()));
    }
    for (index, (r, p)) in record.events.iter().zip(game.events()).enumerate() {
        if r != p {
            return Err(ReplayError::EventDiffers {
                index,
                recorded: format!("{r:?}"),
                replayed: format!("{p:?}"),
            });
        }
    }
    if record.events.len() != game.events().len() {
        return Err(ReplayError::EventCount {
            recorded: record.events.len(),
            replayed: game.events().len(),
        });
    }
    let replayed = game.result().expect("finished");
    if *replayed != record.result {
        return Err(ReplayError::ResultDiffers(describe_difference(
            &record.result,
            replayed,
        )));
    }
    Ok(game)
}

fn describe_difference(recorded: &HandResult, replayed: &HandResult) -> String {
    if recorded.winner != replayed.winner {
        return format!("winner {:?} vs {:?}", recorded.winner, replayed.winner);
    }
    if recorded.deltas != replayed.deltas {
        return format!(
            "score changes {:?} vs {:?}",
            recorded.deltas, replayed.deltas
        );
    }
    match (&recorded.score, &replayed.score) {
        (Some(a), Some(b)) if a != b => return describe_score_difference(a, b),
        (a, b) if a != b => {
            return "a score where there is none, or none where there is one".into();
        }
        _ => {}
    }
    if recorded.hands != replayed.hands {
        return "the revealed hands".into();
    }
    if recorded.melds != replayed.melds {
        return "the melds".into();
    }
    if recorded.flowers != replayed.flowers {
        return "the flowers".into();
    }
    "the winning tile or how it was won".into()
}

fn describe_score_difference(recorded: &WinScore, replayed: &WinScore) -> String {
    let line = |f: &crate::game::FanLine| {
        format!(
            "{} {} ({}) {}×{}",
            f.scorer.name(),
            f.id,
            f.name(),
            f.points,
            f.count
        )
    };
    let mut diffs = Vec::new();
    for f in &recorded.fans {
        if !replayed.fans.contains(f) {
            diffs.push(format!("fan {} is not in the replay", line(f)));
        }
    }
    for f in &replayed.fans {
        if !recorded.fans.contains(f) {
            diffs.push(format!("fan {} is missing from the record", line(f)));
        }
    }
    if recorded.total != replayed.total {
        diffs.push(format!("total {} vs {}", recorded.total, replayed.total));
    }
    if recorded.flowers != replayed.flowers || recorded.valid != replayed.valid {
        diffs.push("flower count or validity".into());
    }
    format!("fan breakdown: {}", diffs.join("; "))
}

#[cfg(test)]
mod tests;
