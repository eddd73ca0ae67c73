//! `tongcheng-server admin …`: the operator's commands against cheats, run from a shell
//! against a running server with the admin token. Each is one call of the admin API (the
//! endpoints of `tongcheng-api`, sent by the client crate's typed HTTP), printed as the JSON
//! the API answers, so scripts can pipe it to `jq`. A refusal prints the server's code and
//! message on stderr and exits 1.

use clap::{Args, Subcommand};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tongcheng_api::endpoints::{
    AdminHand, Assist, Audit, CreateSanction, DecideReview, LiftSanction, ListSanctions, Reviews,
    ScanReviews,
};
use tongcheng_api::sanctions::{
    AssistQuery, AuditQuery, HandId, ItemId, LiftQuery, ReviewDecision, ReviewKind, ReviewStatus,
    ReviewsQuery, SanctionKind, SanctionRequest, SanctionsQuery, ScanRequest,
};
use tongcheng_api::{NoBody, NoParams};
use tongcheng_client::{ClientError, HttpApi};

#[derive(Args)]
pub struct AdminArgs {
    /// The server's base URL.
    #[arg(
        long,
        value_name = "URL",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    server: String,
    /// The admin token (else $TONGCHENG_ADMIN_TOKEN).
    #[arg(long, value_name = "TOKEN", global = true)]
    admin_token: Option<String>,
    /// Who acts, for the audit trail (default: the server says "admin").
    #[arg(long, value_name = "NAME", global = true)]
    by: Option<String>,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Warn, suspend or ban an account (or one device key), with a reason.
    Sanction {
        /// The account (every device of it).
        #[arg(long, required_unless_present = "device", conflicts_with = "device")]
        account: Option<i64>,
        /// Or one device key, by device id.
        #[arg(long)]
        device: Option<i64>,
        /// warn, suspend or ban.
        #[arg(long, value_parser = named::<SanctionKind>)]
        kind: SanctionKind,
        /// A suspension's end, unix seconds.
        #[arg(long, value_name = "UNIX_SECONDS", conflicts_with = "days")]
        until: Option<i64>,
        /// A suspension's length in days from now (instead of --until).
        #[arg(long, value_name = "N")]
        days: Option<u32>,
        /// Why (shown to the player).
        #[arg(long)]
        reason: String,
        /// A ban only: void his ranked matches finished since then (unix seconds).
        #[arg(long, value_name = "UNIX_SECONDS")]
        void_from: Option<i64>,
    },
    /// An account's sanctions, newest first, lifted and expired ones too.
    Sanctions {
        #[arg(long)]
        account: i64,
    },
    /// Lift a sanction (voided matches stay voided).
    Lift {
        id: i64,
        #[arg(long)]
        reason: Option<String>,
    },
    /// File the collusion and assist reports' flags of a rule set in the review queue.
    Scan {
        #[arg(long)]
        rules: String,
        /// Only hands since then (unix seconds).
        #[arg(long, value_name = "UNIX_SECONDS")]
        since: Option<i64>,
    },
    /// The review queue (open reviews unless --status says otherwise).
    Reviews {
        /// open, dismissed or actioned.
        #[arg(long, value_parser = named::<ReviewStatus>)]
        status: Option<ReviewStatus>,
        /// report, collusion or assist.
        #[arg(long, value_parser = named::<ReviewKind>)]
        kind: Option<ReviewKind>,
        #[arg(long)]
        account: Option<i64>,
    },
    /// Decide an open review.
    Decide {
        id: i64,
        /// dismissed or actioned.
        #[arg(long, value_parser = named::<ReviewStatus>)]
        decision: ReviewStatus,
        #[arg(long)]
        note: String,
    },
    /// A ranked hand's record (save its `record` and `tongcheng replay` it).
    Hand { record_id: String },
    /// The engine-assist report of a rule set.
    Assist {
        #[arg(long)]
        rules: String,
        #[arg(long)]
        min_decisions: Option<u32>,
    },
    /// The audit trail, oldest first.
    Audit {
        #[arg(long)]
        account: Option<i64>,
    },
}

/// A value of one of the API's enums, by the name the API gives it (`ban`, `dismissed`).
fn named<T: DeserializeOwned>(s: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| format!("'{s}' is not one of the API's names for this"))
}

/// Runs one admin command; the process's exit code.
pub fn run(args: AdminArgs) -> i32 {
    let token = args
        .admin_token
        .clone()
        .or_else(|| std::env::var("TONGCHENG_ADMIN_TOKEN").ok())
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        eprintln!(
            "tongcheng-server admin: no admin token (--admin-token or $TONGCHENG_ADMIN_TOKEN)"
        );
        return 2;
    };
    let mut api = match HttpApi::new(&args.server) {
        Ok(api) => api,
        Err(e) => {
            eprintln!("tongcheng-server admin: {e}");
            return 2;
        }
    };
    api.set_token(Some(token));
    match call(&api, args.by, args.command) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(e) => {
            eprintln!("tongcheng-server admin: {e}");
            1
        }
    }
}

fn call(api: &HttpApi, by: Option<String>, command: AdminCommand) -> Result<String, ClientError> {
    let none = NoParams {};
    match command {
        AdminCommand::Sanction {
            account,
            device,
            kind,
            until,
            days,
            reason,
            void_from,
        } => {
            let until = until.or_else(|| {
                days.map(|d| tongcheng_core::clock::unix_secs() + i64::from(d) * 86_400)
            });
            let request = SanctionRequest {
                account,
                device,
                kind,
                until,
                reason,
                void_from,
                by,
            };
            json(api.call::<CreateSanction>(&none, &none, &request)?)
        }
        AdminCommand::Sanctions { account } => {
            json(api.call::<ListSanctions>(&none, &SanctionsQuery { account }, &NoBody)?)
        }
        AdminCommand::Lift { id, reason } => {
            json(api.call::<LiftSanction>(&ItemId { id }, &LiftQuery { by, reason }, &NoBody)?)
        }
        AdminCommand::Scan { rules, since } => {
            let request = ScanRequest {
                rules,
                since,
                min_hands: None,
                min_decisions: None,
            };
            json(api.call::<ScanReviews>(&none, &none, &request)?)
        }
        AdminCommand::Reviews {
            status,
            kind,
            account,
        } => {
            let query = ReviewsQuery {
                status,
                kind,
                account,
            };
            json(api.call::<Reviews>(&none, &query, &NoBody)?)
        }
        AdminCommand::Decide { id, decision, note } => {
            let request = ReviewDecision { decision, note, by };
            json(api.call::<DecideReview>(&ItemId { id }, &none, &request)?)
        }
        AdminCommand::Hand { record_id } => {
            json(api.call::<AdminHand>(&HandId { id: record_id }, &none, &NoBody)?)
        }
        AdminCommand::Assist {
            rules,
            min_decisions,
        } => {
            let query = AssistQuery {
                rules,
                min_decisions,
                since: None,
            };
            json(api.call::<Assist>(&none, &query, &NoBody)?)
        }
        AdminCommand::Audit { account } => {
            json(api.call::<Audit>(&none, &AuditQuery { account }, &NoBody)?)
        }
    }
}

fn json(answer: impl Serialize) -> Result<String, ClientError> {
    serde_json::to_string_pretty(&answer).map_err(|e| ClientError::Protocol(e.to_string()))
}
