//! Hand records from outside (an upload, a history file): any text gets a record or a typed
//! error from `HandRecord::from_json`, and every verifier gives a verdict, never a panic.
//! Mutated records are also verified again with their content id recomputed, as a forger
//! would, so that changed actions, events, results and rules reach the replay.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_core::record::{HandRecord, RecordId, Verifier, rule_differences};
use tongcheng_core::rules::RuleSet;

fn verify_all(rec: &HandRecord) {
    let any = Verifier::any_preset().verify(rec);
    let custom = Verifier::any_preset().allow_custom().verify(rec);
    let guobiao = Verifier::presets(&["guobiao"])
        .expect("guobiao is a preset")
        .verify(rec);
    // Allowing custom rules accepts more, never less.
    if any.is_ok() {
        assert!(
            custom.is_ok(),
            "any preset accepts, custom refuses: {custom:?}"
        );
    }
    if guobiao.is_ok() {
        assert!(any.is_ok(), "guobiao accepts, any preset refuses: {any:?}");
    }
    // A verified record's replay is the recorded hand.
    if let Ok(game) = &custom {
        assert_eq!(game.result(), Some(&rec.result));
        assert_eq!(game.events(), &rec.events[..]);
        game.check_invariants()
            .expect("a replayed hand keeps the invariants");
        let again = HandRecord::of(game).expect("a verified hand is over");
        assert_eq!(
            &again, rec,
            "the replay's record differs from the verified one"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut rec) = HandRecord::from_json(text) else {
        return;
    };
    verify_all(&rec);
    let _ = rule_differences(&RuleSet::guobiao(), &rec.setup.rules);
    let _ = rule_differences(&RuleSet::hangzhou(), &rec.setup.rules);
    // What this build writes, it reads back the same.
    let back = HandRecord::from_json(&rec.to_json()).expect("a written record reads back");
    assert_eq!(back, rec);
    let id = RecordId::of(&rec.setup, &rec.actions);
    if id != rec.id {
        rec.id = id;
        verify_all(&rec);
    }
});
