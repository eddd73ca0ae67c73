//! The review queue: players' reports and the automatic flags in one list, each with its
//! evidence, filed once per subject (a flag found again brings its open review up to date).

use std::collections::{BTreeMap, BTreeSet};

use tongcheng_api::admin::Thresholds;
use tongcheng_api::sanctions::{
    AssistThresholds, Evidence, Review, ReviewKind, ReviewStatus, ScanRequest, ScanResponse,
};

use crate::store::{NewReview, Store, StoreError, StoredReview};

pub fn kind_name(k: ReviewKind) -> &'static str {
    match k {
        ReviewKind::Report => "report",
        ReviewKind::Collusion => "collusion",
        ReviewKind::Assist => "assist",
    }
}

pub fn status_name(s: ReviewStatus) -> &'static str {
    match s {
        ReviewStatus::Open => "open",
        ReviewStatus::Dismissed => "dismissed",
        ReviewStatus::Actioned => "actioned",
    }
}

/// A review as the admin endpoints show it.
pub fn shown(r: &StoredReview) -> Result<Review, StoreError> {
    let kind = match r.kind.as_str() {
        "report" => ReviewKind::Report,
        "collusion" => ReviewKind::Collusion,
        "assist" => ReviewKind::Assist,
        k => return Err(StoreError::Corrupt(format!("review kind '{k}'"))),
    };
    let status = match r.status.as_str() {
        "open" => ReviewStatus::Open,
        "dismissed" => ReviewStatus::Dismissed,
        "actioned" => ReviewStatus::Actioned,
        s => return Err(StoreError::Corrupt(format!("review status '{s}'"))),
    };
    let evidence: Evidence = serde_json::from_str(&r.evidence)
        .map_err(|e| StoreError::Corrupt(format!("review {} evidence: {e}", r.id)))?;
    Ok(Review {
        id: r.id,
        kind,
        account: r.account_id,
        partner: r.partner_id,
        rules: r.rules.clone(),
        status,
        evidence,
        created_at: r.created_at,
        updated_at: r.updated_at,
        decided_at: r.decided_at,
        decided_by: r.decided_by.clone(),
        note: r.note.clone(),
    })
}

fn evidence_text(e: &Evidence) -> Result<String, StoreError> {
    serde_json::to_string(e).map_err(|e| StoreError::Backend(format!("evidence: {e}")))
}

/// A player's report as a review to file.
pub fn report_review(
    reporter: i64,
    reported: i64,
    record_id: &str,
    reason: &str,
) -> Result<NewReview, StoreError> {
    let evidence = Evidence {
        report: Some(tongcheng_api::sanctions::PlayerReport {
            reporter,
            record_id: record_id.to_string(),
            reason: reason.to_string(),
        }),
        pair: None,
        assist: None,
        hands: vec![record_id.to_string()],
    };
    Ok(NewReview {
        kind: "report".into(),
        dedupe: format!("report:{reporter}:{reported}:{record_id}"),
        account_id: reported,
        partner_id: None,
        rules: None,
        evidence: evidence_text(&evidence)?,
    })
}

/// Hands kept per collusion pair as evidence.
const PAIR_HANDS: usize = 10;

/// Runs both reports over the rule set's ranked history and files their flags. Replays every
/// hand twice: run it on a blocking thread.
pub fn scan(
    store: &dyn Store,
    req: &ScanRequest,
    actor: &str,
    now: i64,
) -> crate::store::Result<ScanResponse> {
    let (rules, since) = (req.rules.as_str(), req.since.unwrap_or(0));
    let pair_t = Thresholds {
        min_hands: req
            .min_hands
            .unwrap_or(Thresholds::default().min_hands)
            .max(1),
        ..Thresholds::default()
    };
    let assist_t = AssistThresholds {
        min_decisions: req
            .min_decisions
            .unwrap_or(AssistThresholds::default().min_decisions)
            .max(1),
        ..AssistThresholds::default()
    };
    let collusion = crate::collusion::from_store(store, rules, since, &pair_t)?;
    let assist = super::assist::from_store(store, rules, since, &assist_t)?;
    let pairs: Vec<_> = collusion.flagged().cloned().collect();
    let wanted: BTreeSet<(i64, i64)> = pairs.iter().map(|p| (p.account, p.partner)).collect();
    let hands = shared_hands(store, rules, since, &wanted)?;
    let mut filed = 0;
    for p in &pairs {
        let evidence = Evidence {
            report: None,
            pair: Some(p.clone()),
            assist: None,
            hands: hands
                .get(&(p.account, p.partner))
                .cloned()
                .unwrap_or_default(),
        };
        let r = NewReview {
            kind: "collusion".into(),
            dedupe: format!("collusion:{rules}:{}:{}", p.account, p.partner),
            account_id: p.account,
            partner_id: Some(p.partner),
            rules: Some(rules.to_string()),
            evidence: evidence_text(&evidence)?,
        };
        filed += u32::from(store.file_review(&r, actor, now)?.1);
    }
    let flagged: Vec<_> = assist
        .accounts
        .iter()
        .filter(|a| !a.flagged_by.is_empty())
        .collect();
    for a in &flagged {
        let evidence = Evidence {
            report: None,
            pair: None,
            assist: Some((*a).clone()),
            hands: a.hands_sample.clone(),
        };
        let r = NewReview {
            kind: "assist".into(),
            dedupe: format!("assist:{rules}:{}", a.account),
            account_id: a.account,
            partner_id: None,
            rules: Some(rules.to_string()),
            evidence: evidence_text(&evidence)?,
        };
        filed += u32::from(store.file_review(&r, actor, now)?.1);
    }
    Ok(ScanResponse {
        hands: collusion.hands,
        collusion_flags: pairs.len() as u32,
        assist_flags: flagged.len() as u32,
        filed,
    })
}

/// The latest hands each wanted pair shared (record ids, newest first).
fn shared_hands(
    store: &dyn Store,
    rules: &str,
    since: i64,
    wanted: &BTreeSet<(i64, i64)>,
) -> crate::store::Result<BTreeMap<(i64, i64), Vec<String>>> {
    let mut out: BTreeMap<(i64, i64), Vec<String>> = BTreeMap::new();
    if wanted.is_empty() {
        return Ok(out);
    }
    let mut after = 0;
    loop {
        let page = store.ranked_hands(rules, after, 500)?;
        let Some(&(last, _)) = page.last() else {
            break;
        };
        after = last;
        for (_, h) in page.iter().filter(|(_, h)| h.played_at >= since) {
            let at: Vec<i64> = h.accounts.iter().flatten().copied().collect();
            for &(a, b) in wanted {
                if at.contains(&a) && at.contains(&b) {
                    let v = out.entry((a, b)).or_default();
                    if v.len() == PAIR_HANDS {
                        v.remove(0);
                    }
                    v.push(h.record_id.clone());
                }
            }
        }
    }
    for v in out.values_mut() {
        v.reverse();
    }
    Ok(out)
}
