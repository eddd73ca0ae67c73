use super::*;
use crate::bot::play_simple_hand;
use crate::rules::RuleSet;
use crate::seat::Wind;
use crate::wall::Seed;

fn setup(rules: RuleSet, seed: u64) -> HandSetup {
    HandSetup {
        rules,
        seed: Seed::from_u64(seed),
        dealer: Seat(1),
        prevalent: Wind::South,
        dealer_level: 0,
    }
}

/// A finished guobiao hand with a win (seeds are tried until one is won).
fn won_record() -> HandRecord {
    (0..200)
        .map(|s| HandRecord::of(&play_simple_hand(setup(RuleSet::guobiao(), s), s)).unwrap())
        .find(|r| r.result.score.as_ref().is_some_and(|s| s.valid))
        .expect("some simple hand is won")
}

fn v1_fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn a_record_round_trips_and_verifies() {
    let r = won_record();
    let back = HandRecord::from_json(&r.to_json()).unwrap();
    assert_eq!(back, r);
    replay(&back).unwrap();
    Verifier::presets(&["guobiao"])
        .unwrap()
        .verify(&back)
        .unwrap();
}

#[test]
fn the_content_id_follows_setup_and_actions_only() {
    let r = won_record();
    assert_eq!(r.id, RecordId::of(&r.setup, &r.actions));
    assert_eq!(r.id.as_str().len(), 64);
    let mut other = r.clone();
    other.setup.seed = Seed::from_u64(999);
    assert_ne!(RecordId::of(&other.setup, &other.actions), r.id);
    let mut fewer = r.clone();
    fewer.actions.pop();
    assert_ne!(RecordId::of(&fewer.setup, &fewer.actions), r.id);
    // A stale id is refused before anything is replayed.
    let e = replay(&other).unwrap_err();
    assert!(matches!(e, ReplayError::Id { .. }), "{e}");
}

/// Edits the JSON of a record (then fixes its id, as a forger would) and verifies it against
/// the guobiao preset.
fn tampered(edit: impl Fn(&mut Value)) -> Result<Game, String> {
    let r = won_record();
    let mut v: Value = serde_json::to_value(&r).unwrap();
    edit(&mut v);
    let mut r: HandRecord = serde_json::from_value(v).map_err(|e| e.to_string())?;
    r.id = RecordId::of(&r.setup, &r.actions);
    Verifier::presets(&["guobiao"])
        .unwrap()
        .verify(&r)
        .map_err(|e| e.to_string())
}

#[test]
fn tampered_rules_setup_and_fans_are_named() {
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "minimum",
            Box::new(|v| v["setup"]["rules"]["mcr"]["min_points"] = 0.into()),
            "mcr.min_points 0 (preset: 8)",
        ),
        (
            "made-up name",
            Box::new(|v| v["setup"]["rules"]["name"] = "my-rules".into()),
            "rules 'my-rules' are not accepted here (accepted: guobiao)",
        ),
        (
            "time limits",
            Box::new(|v| v["setup"]["rules"]["time"]["claim_secs"] = 60.into()),
            "time.claim_secs 60 (preset: 3)",
        ),
        (
            "dealer level",
            Box::new(|v| v["setup"]["dealer_level"] = 3.into()),
            "dealer level 3 under rules whose highest level is 0",
        ),
        (
            "dealer level 20",
            Box::new(|v| v["setup"]["dealer_level"] = 20.into()),
            "dealer level 20",
        ),
        (
            "rules version",
            Box::new(|v| v["setup"]["rules"]["version"] = 7.into()),
            "guobiao version 7",
        ),
        (
            "a fan",
            Box::new(|v| {
                let fans = v["result"]["score"]["fans"].as_array_mut().unwrap();
                fans[0]["count"] = (fans[0]["count"].as_u64().unwrap() + 1).into();
            }),
            "fan breakdown: fan mcr",
        ),
        (
            "a payment",
            Box::new(|v| v["result"]["deltas"][0] = 1_000_000.into()),
            "score changes",
        ),
    ];
    for (what, edit, expected) in cases {
        let e = tampered(edit).unwrap_err();
        assert!(e.contains(expected), "{what}: {e}");
    }
    // Unchanged, the same path verifies.
    tampered(|_| {}).unwrap();
}

#[test]
fn unknown_fields_and_sloppy_tiles_are_refused() {
    let r = won_record();
    let mut v: Value = serde_json::to_value(&r).unwrap();
    v["setup"]["rules"]["house_rule"] = true.into();
    let e = HandRecord::from_json(&v.to_string()).unwrap_err();
    assert!(e.to_string().contains("house_rule"), "{e}");
    let mut v: Value = serde_json::to_value(&r).unwrap();
    v["extra"] = 1.into();
    assert!(HandRecord::from_json(&v.to_string()).is_err());
    let mut v: Value = serde_json::to_value(&r).unwrap();
    v["setup"]["dealer"] = 9.into();
    let e = HandRecord::from_json(&v.to_string()).unwrap_err();
    assert!(e.to_string().contains("seat 9 does not exist"), "{e}");
    let mut v: Value = serde_json::to_value(&r).unwrap();
    v["actions"][0]["action"]["tile"] = " 4z".into();
    assert!(HandRecord::from_json(&v.to_string()).is_err());
    let too_big = " ".repeat(MAX_RECORD_BYTES + 1);
    assert!(matches!(
        HandRecord::from_json(&too_big),
        Err(RecordError::TooLarge(_))
    ));
    let newer = r.to_json().replacen("\"version\":2", "\"version\":3", 1);
    assert!(matches!(
        HandRecord::from_json(&newer),
        Err(RecordError::Newer(3))
    ));
    let never = r.to_json().replacen("\"version\":2", "\"version\":0", 1);
    assert!(matches!(
        HandRecord::from_json(&never),
        Err(RecordError::Upgrade { .. })
    ));
}

#[test]
fn custom_rules_only_where_allowed() {
    let mut rules = RuleSet::guobiao();
    rules.name = "club".into();
    rules.mcr.min_points = 6;
    let r = HandRecord::of(&play_simple_hand(setup(rules.clone(), 3), 3)).unwrap();
    assert!(replay(&r).is_err());
    Verifier::any_preset().allow_custom().verify(&r).unwrap();
    // Custom rules must still be playable.
    let mut bad = r.clone();
    bad.setup.rules.rounds = 0;
    bad.id = RecordId::of(&bad.setup, &bad.actions);
    let e = Verifier::any_preset()
        .allow_custom()
        .verify(&bad)
        .unwrap_err();
    assert!(e.to_string().contains("rounds 0"), "{e}");
}

#[test]
fn flipped_wilds_with_flowers_are_refused_not_a_panic() {
    let mut rules = RuleSet::hangzhou();
    rules.name = "odd".into();
    rules.flowers = true;
    rules.wild = crate::rules::WildRule::Flipped;
    // A forged record of such a hand (its actions do not matter: it is refused first).
    let mut r = won_record();
    r.setup.rules = rules;
    r.id = RecordId::of(&r.setup, &r.actions);
    for v in [
        Verifier::any_preset(),
        Verifier::any_preset().allow_custom(),
    ] {
        let e = v.verify(&r).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
    let e = Verifier::any_preset()
        .allow_custom()
        .verify(&r)
        .unwrap_err();
    assert!(e.to_string().contains("flipped wild"), "{e}");
}

#[test]
fn version_1_records_upgrade_and_verify() {
    for name in ["record-v1-guobiao.json", "record-v1-hangzhou.json"] {
        let text = v1_fixture(name);
        let r = HandRecord::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.version, RECORD_VERSION);
        assert_eq!(r.id, RecordId::of(&r.setup, &r.actions));
        let game = replay(&r).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(game.result(), Some(&r.result));
        let score = r.result.score.as_ref().unwrap();
        assert!(!score.fans.is_empty());
        for f in &score.fans {
            assert_ne!(f.name(), "?", "{name}: {f:?}");
        }
        if name.contains("hangzhou") {
            assert!(score.fans.iter().all(|f| f.scorer == Scorer::Hangzhou));
            // v1 stored a list position (0) for 平胡; its stable id is 1.
            assert_eq!(score.fans[0].id, 1);
            assert_eq!(score.fans[0].name(), "平胡");
        } else {
            assert!(score.fans.iter().all(|f| f.scorer == Scorer::Mcr));
        }
    }
}

/// Under a preset with 飘 chosen each hand, a record's choices are not a rule change; out of
/// range choices and another 飘 mode still are refused.
#[test]
fn chosen_piao_is_no_rule_difference_from_its_preset() {
    use crate::game::Match;
    use crate::rules::Piao;
    let preset = RuleSet {
        name: "tongcheng-dianpao-piao".into(),
        piao: Piao::Chosen([0; 4]),
        ..RuleSet::tongcheng_dianpao()
    };
    let verifier = Verifier {
        presets: vec![preset.clone()],
        custom: false,
        any_match_length: false,
        announced: None,
    };
    let mut m = Match::single(setup(preset, 4));
    m.choose_piao(Seat(0), 3).unwrap();
    m.choose_piao(Seat(2), 1).unwrap();
    let mut players: [crate::bot::SimplePlayer; 4] =
        std::array::from_fn(|i| crate::bot::SimplePlayer::new(i as u64));
    while !m.game().is_finished() {
        for s in m.game().pending_seats() {
            let a = players[s.index()].pick(&m.game().legal_actions(s));
            m.apply(s, a).unwrap();
        }
    }
    let record = HandRecord::of(m.game()).unwrap();
    verifier.verify(&record).unwrap();
    let with = |piao: Piao| {
        let mut r = record.clone();
        r.setup.rules.piao = piao;
        r.id = RecordId::of(&r.setup, &r.actions);
        verifier.verify(&r).err()
    };
    assert!(matches!(
        with(Piao::Chosen([0, 11, 0, 0])),
        Some(ReplayError::BadSetup(_))
    ));
    assert!(matches!(
        with(Piao::Fixed(1)),
        Some(ReplayError::RulesDiffer { .. })
    ));
}

/// A server may shorten its matches (`--match-hands`): the seat's fairness check accepts the
/// preset at another match length; the upload check, and any other difference, still refuse.
#[test]
fn a_match_of_another_length_is_the_same_preset_only_when_asked() {
    let short = RuleSet {
        rounds: 1,
        hands_per_round: 1,
        ..RuleSet::guobiao()
    };
    let record = HandRecord::of(&play_simple_hand(setup(short.clone(), 5), 5)).unwrap();
    assert!(matches!(
        Verifier::any_preset().verify(&record),
        Err(ReplayError::RulesDiffer { .. })
    ));
    Verifier::any_preset()
        .any_match_length()
        .verify(&record)
        .unwrap();
    let other = RuleSet {
        chow_from_left_only: !short.chow_from_left_only,
        ..short
    };
    let record = HandRecord::of(&play_simple_hand(setup(other, 5), 5)).unwrap();
    assert!(matches!(
        Verifier::any_preset().any_match_length().verify(&record),
        Err(ReplayError::RulesDiffer { .. })
    ));
}
