//! 联网: the player's account on the server. The device key lives in the face's key store
//! (the phone's keystore, the browser's IndexedDB) and never leaves it: the model asks for its
//! public key and for one signature, and says which requests to make. Login starts whenever
//! the face says the network is there; nothing offline waits for it, and a failure leaves
//! the player where he was, with the reason on the home screen and a button to try again.
//!
//! The flow: [`Effect::LoadKey`] → `POST /v1/auth/challenge` → [`Effect::Sign`] over the
//! login message → `POST /v1/auth/login` → `GET /v1/ratings`. Every request names its
//! endpoint through the API crate's types, and every answer is read with them.

use serde::de::DeserializeOwned;
use tongcheng_api::ErrorBody;
use tongcheng_api::ErrorCode;
use tongcheng_api::auth::{
    AccountInfo, ChallengeResponse, LinkResponse, LoginRequest, LoginResponse,
};
use tongcheng_api::endpoints::{self, Endpoint};
use tongcheng_api::play::{Rating, RatingsResponse, Tier};
use tongcheng_api::{NoParams, PathParams};
use tongcheng_core::hex::{hex, unhex_array};

use crate::catalogue::{Lang, Text, preset_name};
use crate::model::{Effect, Tap};
use crate::view::{Button, OnlineView};

/// Where login stands.
#[derive(Clone, Debug, PartialEq)]
enum State {
    /// Not tried (no network yet), or the last try found no server.
    Offline,
    /// Under way: the key, the challenge, the signature or the login itself.
    LoggingIn,
    /// Logged in.
    In {
        token: String,
        account: AccountInfo,
        ratings: Option<Vec<Rating>>,
    },
    /// The server said no (a banned device, a suspended account…): its words.
    Refused { message: String },
    /// The face has no key store (an old browser): online play is not possible here.
    NoKeyStore,
}

/// The request whose answer is awaited.
#[derive(Clone, Debug, PartialEq)]
enum Awaiting {
    Challenge,
    Signature {
        nonce: String,
    },
    Login,
    Ratings,
    /// 显示关联码: a code for another device.
    LinkCode,
}

/// 关联设备: where showing a code or joining by one stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Link {
    #[default]
    Idle,
    /// A code for the other device, and for how many seconds it holds.
    Shown { code: String, expires_in: i64 },
    /// Joining the account of the code typed: the login under way.
    Joining,
    /// This device now plays as that account.
    Joined { name: String },
    /// Why not (in the player's language when the server's code says).
    Failed(LinkFailure),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LinkFailure {
    /// Wrong, used or expired.
    BadCode,
    /// This device's own account holds more than itself.
    InUse,
    /// Not signed in, or no answer.
    Offline,
    Server(String),
}

/// The account, as the app knows it.
#[derive(Debug)]
pub(crate) struct Online {
    state: State,
    network_up: bool,
    /// The device's public key (hex), once the key store gave it.
    public_key: Option<String>,
    /// The request under way (its id) and what it is; answers with another id are stale.
    awaiting: Option<(u64, Awaiting)>,
    next_id: u64,
    /// The code of a link login under way (its login joins that code's account).
    linking: Option<String>,
    pub(crate) link: Link,
}

impl Default for Online {
    fn default() -> Online {
        Online {
            state: State::Offline,
            network_up: false,
            public_key: None,
            awaiting: None,
            next_id: 0,
            linking: None,
            link: Link::Idle,
        }
    }
}

/// An answer's body as an endpoint's response, or the server's error.
pub(crate) enum Answer<T> {
    Ok(T),
    /// The server answered with an error body: its code and words.
    Refused(ErrorBody),
    /// No answer that reads (no server, a proxy's page, a network failure).
    Unreachable,
}

/// Request `id` of endpoint `E`: its path filled in, then `query`; with the session token
/// when there is one.
pub(crate) fn request<E: Endpoint>(
    id: u64,
    params: &E::Params,
    query: &str,
    token: Option<&str>,
    body: Option<serde_json::Value>,
) -> Effect
where
    E::Params: PathParams,
{
    Effect::Request {
        id,
        method: E::METHOD.as_str().into(),
        path: format!("{}{query}", E::path(params)),
        token: token.map(str::to_string),
        body,
    }
}

pub(crate) fn read<T: DeserializeOwned>(status: u16, body: serde_json::Value) -> Answer<T> {
    if (200..300).contains(&status) {
        return match serde_json::from_value(body) {
            Ok(v) => Answer::Ok(v),
            Err(_) => Answer::Unreachable,
        };
    }
    match serde_json::from_value::<ErrorBody>(body) {
        Ok(e) if status != 0 => Answer::Refused(e),
        _ => Answer::Unreachable,
    }
}

impl Online {
    /// Logged in: the session token.
    pub(crate) fn token(&self) -> Option<&str> {
        match &self.state {
            State::In { token, .. } => Some(token),
            _ => None,
        }
    }

    /// The face's network came or went.
    pub(crate) fn network(&mut self, up: bool, fx: &mut Vec<Effect>) {
        self.network_up = up;
        if !up {
            // Answers still in flight are dropped; the session (if any) stays for later.
            self.awaiting = None;
            if self.linking.take().is_some() {
                self.link = Link::Failed(LinkFailure::Offline);
            }
            if self.state == State::LoggingIn {
                self.state = State::Offline;
            }
            return;
        }
        match self.state {
            State::Offline => self.log_in(fx),
            // Back online: the ratings again (a session that ran out logs in anew).
            State::In { .. } => self.ratings(fx),
            State::LoggingIn | State::Refused { .. } | State::NoKeyStore => {}
        }
    }

    /// 重新连接: tries again after a failure or a refusal.
    pub(crate) fn retry(&mut self, fx: &mut Vec<Effect>) {
        if matches!(self.state, State::Offline | State::Refused { .. }) {
            self.network_up = true;
            self.log_in(fx);
        }
    }

    fn log_in(&mut self, fx: &mut Vec<Effect>) {
        self.state = State::LoggingIn;
        match self.public_key {
            None => {
                self.awaiting = None;
                fx.push(Effect::LoadKey);
            }
            Some(_) => self.challenge(fx),
        }
    }

    /// The key store's answer: the public key (hex), or none when it cannot keep one.
    pub(crate) fn key_loaded(&mut self, public_key: Option<String>, fx: &mut Vec<Effect>) {
        if self.state != State::LoggingIn {
            return;
        }
        match public_key.filter(|k| unhex_array::<32>(k).is_some()) {
            Some(k) => {
                self.public_key = Some(k.to_ascii_lowercase());
                self.challenge(fx);
            }
            None => self.state = State::NoKeyStore,
        }
    }

    fn challenge(&mut self, fx: &mut Vec<Effect>) {
        fx.push(self.request::<endpoints::Challenge>(&NoParams {}, None, Awaiting::Challenge));
    }

    /// 显示关联码: asks the server for a code the player types on his other device.
    pub(crate) fn show_link_code(&mut self, fx: &mut Vec<Effect>) {
        if self.token().is_none() || self.awaiting.is_some() || !self.network_up {
            self.link = Link::Failed(LinkFailure::Offline);
            return;
        }
        fx.push(self.request::<endpoints::CreateLink>(&NoParams {}, None, Awaiting::LinkCode));
    }

    /// 关联: this device joins the account of `code` (typed from the other device), by a
    /// login that names it; the session it has stays until that login succeeds.
    pub(crate) fn join_by_code(&mut self, code: String, fx: &mut Vec<Effect>) {
        if self.public_key.is_none() || self.awaiting.is_some() || !self.network_up {
            self.link = Link::Failed(LinkFailure::Offline);
            return;
        }
        self.linking = Some(code);
        self.link = Link::Joining;
        self.challenge(fx);
    }

    /// A link login that did not go through: the device keeps the session it had.
    fn link_failed<T>(&mut self, answer: Answer<T>) {
        self.linking = None;
        self.link = Link::Failed(match answer {
            Answer::Refused(e) if e.error.code == ErrorCode::InvalidLinkCode => {
                LinkFailure::BadCode
            }
            Answer::Refused(e) if e.error.code == ErrorCode::KeyInUse => LinkFailure::InUse,
            Answer::Refused(e) => LinkFailure::Server(e.error.message),
            Answer::Ok(_) | Answer::Unreachable => LinkFailure::Offline,
        });
    }

    /// The ratings again, after a match that may have moved them (when signed in and no
    /// other answer is awaited).
    pub(crate) fn refresh_ratings(&mut self, fx: &mut Vec<Effect>) {
        if matches!(self.state, State::In { .. }) && self.awaiting.is_none() && self.network_up {
            self.ratings(fx);
        }
    }

    fn ratings(&mut self, fx: &mut Vec<Effect>) {
        fx.push(self.request::<endpoints::Ratings>(&NoParams {}, None, Awaiting::Ratings));
    }

    /// One request of endpoint `E`, awaited as `what`.
    fn request<E: Endpoint>(
        &mut self,
        params: &E::Params,
        body: Option<serde_json::Value>,
        what: Awaiting,
    ) -> Effect
    where
        E::Params: PathParams,
    {
        self.next_id += 1;
        self.awaiting = Some((self.next_id, what));
        request::<E>(self.next_id, params, "", self.token(), body)
    }

    /// The key store's signature (hex) of the message [`Effect::Sign`] asked for.
    pub(crate) fn signed(&mut self, signature: Option<String>, fx: &mut Vec<Effect>) {
        let Some((_, Awaiting::Signature { nonce })) = self.awaiting.clone() else {
            return;
        };
        let (Some(signature), Some(public_key)) = (
            signature.filter(|s| unhex_array::<64>(s).is_some()),
            self.public_key.clone(),
        ) else {
            self.awaiting = None;
            if self.linking.is_some() {
                // The session this device has stays; only the link did not happen.
                self.link_failed::<()>(Answer::Unreachable);
            } else {
                self.state = State::NoKeyStore;
            }
            return;
        };
        let login = LoginRequest {
            public_key,
            nonce,
            signature,
            device_name: None,
            link_code: self.linking.clone(),
        };
        let body = serde_json::to_value(login).ok();
        fx.push(self.request::<endpoints::Login>(&NoParams {}, body, Awaiting::Login));
    }

    /// A request's answer (`status` 0: none came).
    pub(crate) fn answered(
        &mut self,
        id: u64,
        status: u16,
        body: serde_json::Value,
        fx: &mut Vec<Effect>,
    ) {
        let what = match &self.awaiting {
            Some((awaited, what)) if *awaited == id => what.clone(),
            _ => return,
        };
        self.awaiting = None;
        match what {
            Awaiting::Challenge => match read::<ChallengeResponse>(status, body) {
                Answer::Ok(c) => self.sign(c.nonce, fx),
                other if self.linking.is_some() => self.link_failed(other),
                other => self.failed(other),
            },
            Awaiting::LinkCode => match read::<LinkResponse>(status, body) {
                Answer::Ok(l) => {
                    self.link = Link::Shown {
                        code: l.code,
                        expires_in: l.expires_in,
                    }
                }
                other => self.link_failed(other),
            },
            Awaiting::Signature { .. } => {}
            Awaiting::Login => {
                let linking = self.linking.take().is_some();
                match read::<LoginResponse>(status, body) {
                    Answer::Ok(l) => {
                        if linking {
                            self.link = Link::Joined {
                                name: l.account.display_name.clone(),
                            };
                        }
                        self.state = State::In {
                            token: l.token,
                            account: l.account,
                            ratings: None,
                        };
                        self.ratings(fx);
                    }
                    // A refused link keeps the session the device had.
                    other if linking => self.link_failed(other),
                    other => self.failed(other),
                }
            }
            Awaiting::Ratings => match read::<RatingsResponse>(status, body) {
                Answer::Ok(r) => {
                    if let State::In { ratings, .. } = &mut self.state {
                        *ratings = Some(r.ratings);
                    }
                }
                // The session ran out or was revoked: log in again.
                Answer::Refused(_) if status == 401 => self.log_in(fx),
                // Ratings are a nicety: the session stands without them.
                _ => {}
            },
        }
    }

    fn sign(&mut self, nonce: String, fx: &mut Vec<Effect>) {
        let (Some(n), Some(k)) = (
            unhex_array::<32>(&nonce),
            self.public_key.as_deref().and_then(unhex_array::<32>),
        ) else {
            self.state = State::Offline;
            return;
        };
        let message = hex(&tongcheng_api::auth::login_message(&n, &k));
        self.next_id += 1;
        self.awaiting = Some((self.next_id, Awaiting::Signature { nonce }));
        fx.push(Effect::Sign { message });
    }

    fn failed<T>(&mut self, answer: Answer<T>) {
        self.state = match answer {
            Answer::Refused(e) => State::Refused {
                message: e.error.message,
            },
            _ => State::Offline,
        };
    }

    /// The home screen's account line.
    pub(crate) fn view(&self, lang: Lang) -> OnlineView {
        let retry = || Some(Button::new(Text::Reconnect.get(lang), true, Tap::Reconnect));
        let (status, ratings, retry) = match &self.state {
            // Offline, signed in or not: online play waits for the network (the session is
            // kept for when it comes back).
            _ if !self.network_up && self.state != State::NoKeyStore => {
                let retry = if matches!(self.state, State::In { .. }) {
                    None
                } else {
                    retry()
                };
                (Text::OfflinePlay.get(lang).to_string(), Vec::new(), retry)
            }
            State::In {
                account, ratings, ..
            } => {
                let colon = if lang == Lang::ZhCn { "：" } else { ": " };
                let status = format!(
                    "{}{colon}{}",
                    Text::SignedIn.get(lang),
                    account.display_name
                );
                let lines = match ratings {
                    None => Vec::new(),
                    Some(r) if r.is_empty() => vec![Text::NoRatingYet.get(lang).to_string()],
                    Some(r) => r.iter().map(|r| rating_line(r, lang)).collect(),
                };
                (status, lines, None)
            }
            State::LoggingIn => (Text::Connecting.get(lang).to_string(), Vec::new(), None),
            State::Offline => (Text::OfflinePlay.get(lang).to_string(), Vec::new(), retry()),
            State::Refused { message } => (message.clone(), Vec::new(), retry()),
            State::NoKeyStore => (Text::NoKeyStore.get(lang).to_string(), Vec::new(), None),
        };
        OnlineView {
            status,
            ratings,
            signed_in: self.network_up && matches!(self.state, State::In { .. }),
            retry,
        }
    }
}

/// One rating for people: "国标麻将 黄金 · 27.3 分（12 场）", or its placement progress
/// ("定级中 3/10").
fn rating_line(r: &Rating, lang: Lang) -> String {
    let rules = preset_name(&r.rules, lang);
    let score = r.conservative;
    match (&r.tier, lang) {
        (Some(t), Lang::ZhCn) => {
            format!(
                "{rules} {} · {score:.1} 分（{} 场）",
                tier_name(t, lang),
                r.games
            )
        }
        (Some(t), Lang::En) => {
            format!(
                "{rules}: {} · {score:.1} ({} matches)",
                tier_name(t, lang),
                r.games
            )
        }
        (None, Lang::ZhCn) => format!("{rules} 定级中 {}/{}", r.games, r.provisional_games),
        (None, Lang::En) => format!("{rules}: placement {} of {}", r.games, r.provisional_games),
    }
}

/// A tier's name: 青铜 白银 黄金 铂金 钻石 大师 (a tier this build does not know, as sent).
pub(crate) fn tier_name(t: &Tier, lang: Lang) -> String {
    let (zh, en) = match t {
        Tier::Bronze => ("青铜", "Bronze"),
        Tier::Silver => ("白银", "Silver"),
        Tier::Gold => ("黄金", "Gold"),
        Tier::Platinum => ("铂金", "Platinum"),
        Tier::Diamond => ("钻石", "Diamond"),
        Tier::Master => ("大师", "Master"),
        Tier::Other(s) => return s.clone(),
    };
    match lang {
        Lang::ZhCn => zh.into(),
        Lang::En => en.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "0707070707070707070707070707070707070707070707070707070707070707";

    /// The id of the one request in `fx`, and its path.
    fn request(fx: &[Effect]) -> (u64, String) {
        match fx {
            [Effect::Request { id, path, .. }] => (*id, path.clone()),
            other => panic!("not one request: {other:?}"),
        }
    }

    fn login_answer() -> serde_json::Value {
        json!({"token": "t0k", "expires_at": 2_000_000_000, "account": {"id": 7, "display_name": "玩家7"},
               "device_id": 3, "created_account": true})
    }

    /// Logs in as far as the ratings request; its id.
    fn logged_in(o: &mut Online) -> u64 {
        let mut fx = Vec::new();
        o.network(true, &mut fx);
        assert_eq!(fx, [Effect::LoadKey]);
        fx.clear();
        o.key_loaded(Some(KEY.into()), &mut fx);
        let (id, path) = request(&fx);
        assert_eq!(path, "/v1/auth/challenge");
        fx.clear();
        o.answered(id, 200, json!({"nonce": KEY, "expires_in": 60}), &mut fx);
        let [Effect::Sign { message }] = fx.as_slice() else {
            panic!("{fx:?}")
        };
        // The login message: its domain, then the nonce and the key.
        assert!(message.starts_with(&hex(b"tongcheng-login-v1\n")));
        assert!(message.ends_with(&format!("{KEY}{KEY}")));
        fx.clear();
        o.signed(Some("ab".repeat(64)), &mut fx);
        let (id, path) = request(&fx);
        assert_eq!(path, "/v1/auth/login");
        fx.clear();
        o.answered(id, 200, login_answer(), &mut fx);
        let (id, path) = request(&fx);
        assert_eq!(path, "/v1/ratings");
        assert!(matches!(&fx[0], Effect::Request { token: Some(t), .. } if t == "t0k"));
        id
    }

    #[test]
    fn a_login_shows_the_account_and_its_ratings_in_both_languages() {
        let mut o = Online::default();
        let id = logged_in(&mut o);
        let ratings = json!({"ratings": [
            {"rules": "guobiao", "mu": 30.0, "sigma": 2.0, "conservative": 24.0, "games": 12,
             "provisional": false, "provisional_games": 10, "tier": "gold"},
            {"rules": "tongcheng-dianpao", "mu": 25.0, "sigma": 8.0, "conservative": 1.0, "games": 3,
             "provisional": true, "provisional_games": 10, "tier": null}]});
        o.answered(id, 200, ratings, &mut Vec::new());
        let v = o.view(Lang::ZhCn);
        assert!(v.signed_in);
        assert_eq!(v.status, "已登录：玩家7");
        assert_eq!(
            v.ratings,
            [
                "国标麻将 黄金 · 24.0 分（12 场）",
                "桐城麻将·点炮 定级中 3/10"
            ]
        );
        let en = o.view(Lang::En);
        assert_eq!(en.ratings[0], "Chinese Official: Gold · 24.0 (12 matches)");
        assert_eq!(en.status, "Signed in: 玩家7");
    }

    /// A link login from a signed-in device: the code goes with the login; a refusal keeps
    /// the session, a success changes the account; a lost network ends the attempt.
    #[test]
    fn joining_by_a_code_keeps_the_session_until_the_link_goes_through() {
        let mut o = Online::default();
        let id = logged_in(&mut o);
        o.answered(id, 200, json!({"ratings": []}), &mut Vec::new());
        let attempt = |o: &mut Online| -> u64 {
            let mut fx = Vec::new();
            o.join_by_code("ABCDEFGH".into(), &mut fx);
            assert_eq!(o.link, Link::Joining);
            let (id, path) = request(&fx);
            assert_eq!(path, "/v1/auth/challenge");
            fx.clear();
            o.answered(id, 200, json!({"nonce": KEY, "expires_in": 60}), &mut fx);
            fx.clear();
            o.signed(Some("ab".repeat(64)), &mut fx);
            let [
                Effect::Request {
                    id,
                    body: Some(body),
                    ..
                },
            ] = fx.as_slice()
            else {
                panic!("{fx:?}")
            };
            assert_eq!(body["link_code"], "ABCDEFGH");
            *id
        };
        let id = attempt(&mut o);
        let refused = json!({"error": {"code": "invalid_link_code", "message": "no"}});
        o.answered(id, 403, refused, &mut Vec::new());
        assert_eq!(o.link, Link::Failed(LinkFailure::BadCode));
        assert_eq!(o.token(), Some("t0k"), "the session stays");
        let id = attempt(&mut o);
        let mut joined = login_answer();
        joined["token"] = json!("t1");
        joined["account"] = json!({"id": 9, "display_name": "老玩家"});
        let mut fx = Vec::new();
        o.answered(id, 200, joined, &mut fx);
        assert_eq!(
            o.link,
            Link::Joined {
                name: "老玩家".into()
            }
        );
        assert_eq!(o.token(), Some("t1"));
        assert_eq!(request(&fx).1, "/v1/ratings");
        // A network lost mid-link ends it; the session stays for when it comes back.
        o.awaiting = None;
        o.join_by_code("ABCDEFGH".into(), &mut Vec::new());
        o.network(false, &mut Vec::new());
        assert_eq!(o.link, Link::Failed(LinkFailure::Offline));
        assert_eq!(o.token(), Some("t1"));
    }

    #[test]
    fn stale_and_unasked_answers_change_nothing() {
        let mut o = Online::default();
        let mut fx = Vec::new();
        // Nothing asked yet: a key, a signature or an answer out of the blue is dropped.
        o.key_loaded(Some(KEY.into()), &mut fx);
        o.signed(Some("ab".repeat(64)), &mut fx);
        o.answered(1, 200, login_answer(), &mut fx);
        assert!(fx.is_empty());
        assert!(!o.view(Lang::ZhCn).signed_in);
        // The network goes while the challenge is out: its late answer is dropped.
        o.network(true, &mut fx);
        fx.clear();
        o.key_loaded(Some(KEY.into()), &mut fx);
        let (id, _) = request(&fx);
        o.network(false, &mut Vec::new());
        let mut late = Vec::new();
        o.answered(id, 200, json!({"nonce": KEY, "expires_in": 60}), &mut late);
        assert!(late.is_empty());
        assert_eq!(o.view(Lang::ZhCn).status, "未连接服务器：单机对战照常可玩");
    }

    #[test]
    fn a_run_out_session_logs_in_again_and_a_refusal_says_why() {
        let mut o = Online::default();
        let id = logged_in(&mut o);
        let mut fx = Vec::new();
        let expired = json!({"error": {"code": "unauthorized", "message": "session expired"}});
        o.answered(id, 401, expired, &mut fx);
        // The key is known: straight to a new challenge.
        let (id, path) = request(&fx);
        assert_eq!(path, "/v1/auth/challenge");
        fx.clear();
        let banned = json!({"error": {"code": "account_banned", "message": "this account is banned: 外挂",
                                      "reason": "外挂"}});
        o.answered(id, 403, banned, &mut fx);
        let v = o.view(Lang::ZhCn);
        assert_eq!(v.status, "this account is banned: 外挂");
        assert!(v.retry.is_some());
        assert!(o.token().is_none());
    }

    #[test]
    fn what_is_not_a_key_a_signature_or_an_answer_is_refused() {
        let mut o = Online::default();
        let mut fx = Vec::new();
        o.network(true, &mut fx);
        o.key_loaded(Some("not hex".into()), &mut fx);
        assert_eq!(fx, [Effect::LoadKey]);
        assert_eq!(
            o.view(Lang::ZhCn).status,
            "这个浏览器不能保存登录密钥：只能单机对战"
        );
        // A page that is not the server (a static host's 404 page read as no JSON).
        let mut o = Online::default();
        let mut fx = Vec::new();
        o.network(true, &mut fx);
        fx.clear();
        o.key_loaded(Some(KEY.into()), &mut fx);
        let (id, _) = request(&fx);
        o.answered(id, 404, serde_json::Value::Null, &mut Vec::new());
        assert_eq!(o.view(Lang::ZhCn).status, "未连接服务器：单机对战照常可玩");
        // A challenge whose nonce is not 32 bytes of hex.
        let mut fx = Vec::new();
        o.retry(&mut fx);
        let (id, _) = request(&fx);
        fx.clear();
        o.answered(id, 200, json!({"nonce": "zz", "expires_in": 60}), &mut fx);
        assert!(fx.is_empty());
        assert!(!o.view(Lang::ZhCn).signed_in);
    }
}
