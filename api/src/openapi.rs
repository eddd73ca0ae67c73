//! The OpenAPI document's pieces, generated from the endpoints and their body types: the
//! server routes each endpoint with its [`OperationDoc`] (so its router and its document are
//! one list) and serves the result; [`document`] is the whole contract, which a server test
//! holds the router's document against.

use utoipa::openapi::path::{HttpMethod, OperationBuilder, Parameter, ParameterIn, PathItem};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    ComponentsBuilder, Content, InfoBuilder, OpenApi, OpenApiBuilder, Paths, PathsBuilder, Ref,
    RefOr, Required, ResponseBuilder, ResponsesBuilder,
};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use crate::endpoints::{Endpoint, for_each_endpoint};
use crate::{Auth, Document, ErrorBody, Method, NoBody, NoContent, NoParams, Text, Upgrade};

/// Named schemas an operation refers to, as utoipa collects them.
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// One endpoint's part of the document: its path item and the schemas it names.
#[derive(Clone)]
pub struct OperationDoc {
    pub schemas: Schemas,
    pub paths: Paths,
}

impl std::fmt::Debug for OperationDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OperationDoc")
            .field("paths", &self.paths.paths.keys().collect::<Vec<_>>())
            .field(
                "schemas",
                &self.schemas.iter().map(|s| &s.0).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Path or query parameters, as the document lists them.
pub trait DocParams {
    fn params(kind: ParameterIn) -> Vec<Parameter>;
}

impl<T: IntoParams> DocParams for T {
    fn params(kind: ParameterIn) -> Vec<Parameter> {
        T::into_params(|| Some(kind.clone()))
    }
}

impl DocParams for NoParams {
    fn params(_: ParameterIn) -> Vec<Parameter> {
        Vec::new()
    }
}

/// A request or answer body, as the document gives it.
pub trait DocBody {
    /// The HTTP status of a successful answer with this body.
    const STATUS: &'static str = "200";
    const DESCRIPTION: &'static str = "success";
    /// Its media type and schema (`None`: no body), naming what it refers to in `schemas`.
    fn content(schemas: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)>;
}

impl<T: ToSchema> DocBody for T {
    fn content(schemas: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)> {
        named::<T>(schemas);
        Some(("application/json", Ref::from_schema_name(T::name()).into()))
    }
}

impl DocBody for NoBody {
    fn content(_: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)> {
        None
    }
}

impl DocBody for NoContent {
    const STATUS: &'static str = "204";
    const DESCRIPTION: &'static str = "done";
    fn content(_: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)> {
        None
    }
}

impl DocBody for Upgrade {
    const STATUS: &'static str = "101";
    const DESCRIPTION: &'static str = "switching to the WebSocket protocol";
    fn content(_: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)> {
        None
    }
}

impl DocBody for Text {
    fn content(_: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)> {
        Some(("text/plain", String::schema()))
    }
}

impl DocBody for Document {
    const DESCRIPTION: &'static str = "an OpenAPI 3.1 document";
    fn content(_: &mut Schemas) -> Option<(&'static str, RefOr<Schema>)> {
        Some((
            "application/json",
            ObjectBuilder::new().schema_type(Type::Object).into(),
        ))
    }
}

/// Adds `T` and what it refers to, by name.
fn named<T: ToSchema>(schemas: &mut Schemas) {
    schemas.push((T::name().into_owned(), T::schema()));
    T::schemas(schemas);
}

/// The security scheme names of the document.
pub const SESSION: &str = "session";
pub const ADMIN: &str = "admin";
/// The shared error answer's name under `components/responses`.
pub const ERROR_RESPONSE: &str = "Error";

/// An endpoint whose parameters and bodies the document can describe (every endpoint of
/// [`crate::endpoints`]).
pub trait Documented: Endpoint {
    /// Its part of the document.
    fn operation() -> OperationDoc;
}

impl<E> Documented for E
where
    E: Endpoint,
    E::Params: DocParams,
    E::Query: DocParams,
    E::Request: DocBody,
    E::Response: DocBody,
{
    fn operation() -> OperationDoc {
        let mut schemas = Schemas::new();
        let (summary, description) = summary_and_description(E::DOC);
        let mut params = <E::Params as DocParams>::params(ParameterIn::Path);
        params.extend(<E::Query as DocParams>::params(ParameterIn::Query));
        let mut op = OperationBuilder::new()
            .operation_id(Some(operation_id(std::any::type_name::<E>())))
            .summary(Some(summary))
            .description(description)
            .parameters(Some(params));
        if let Some((media, schema)) = E::Request::content(&mut schemas) {
            op = op.request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content(media, Content::new(Some(schema)))
                    .build(),
            ));
        }
        let mut ok = ResponseBuilder::new().description(E::Response::DESCRIPTION);
        if let Some((media, schema)) = E::Response::content(&mut schemas) {
            ok = ok.content(media, Content::new(Some(schema)));
        }
        op = op.responses(
            ResponsesBuilder::new()
                .response(E::Response::STATUS, ok.build())
                .response("default", Ref::from_response_name(ERROR_RESPONSE))
                .build(),
        );
        let scheme = match E::AUTH {
            Auth::None => None,
            Auth::Session => Some(SESSION),
            Auth::Admin => Some(ADMIN),
        };
        if let Some(scheme) = scheme {
            op = op.security(SecurityRequirement::new(scheme, Vec::<String>::new()));
        }
        let method = match E::METHOD {
            Method::Get => HttpMethod::Get,
            Method::Post => HttpMethod::Post,
            Method::Delete => HttpMethod::Delete,
        };
        OperationDoc {
            schemas,
            paths: PathsBuilder::new()
                .path(E::PATH, PathItem::new(method, op.build()))
                .build(),
        }
    }
}

/// `tongcheng_api::endpoints::JoinRoom` → `join_room`.
fn operation_id(type_name: &str) -> String {
    let name = type_name.rsplit("::").next().unwrap_or(type_name);
    let mut id = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            id.push('_');
        }
        id.push(c.to_ascii_lowercase());
    }
    id
}

/// A doc comment's first paragraph (one line) and the rest (`None` when there is none).
fn summary_and_description(doc: &str) -> (String, Option<String>) {
    let mut paragraphs = doc
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty());
    let summary = paragraphs.next().unwrap_or_default();
    let rest: Vec<String> = paragraphs.collect();
    (summary, (!rest.is_empty()).then(|| rest.join("\n\n")))
}

/// The document without its paths: what it is, how to authenticate, the error answer.
pub fn base() -> OpenApi {
    let mut schemas = Schemas::new();
    named::<ErrorBody>(&mut schemas);
    let bearer = |what: &str| {
        let mut h = Http::new(HttpAuthScheme::Bearer);
        h.description = Some(what.into());
        SecurityScheme::Http(h)
    };
    let error = ResponseBuilder::new()
        .description(
            "an error: a stable code and a message; 429 answers carry Retry-After (seconds)",
        )
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name(ErrorBody::name()))),
        )
        .build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Tongcheng Mahjong server")
                .version("1")
                .description(Some(
                    "One-tap login with an Ed25519 device key, record sync and server-side \
                     verification, matchmaking, private rooms and online tables. Errors are \
                     always {\"error\":{\"code\":\"stable_code\",\"message\":\"...\"}}. Request \
                     bodies are limited (4 MiB unless configured).",
                ))
                .build(),
        )
        .components(Some(
            ComponentsBuilder::new()
                .schemas_from_iter(schemas)
                .response(ERROR_RESPONSE, error)
                .security_scheme(SESSION, bearer("The session token from /v1/auth/login"))
                .security_scheme(
                    ADMIN,
                    bearer(
                        "The server's admin token (--admin-token or TONGCHENG_ADMIN_TOKEN), not \
                         a player's session",
                    ),
                )
                .build(),
        ))
        .build()
}

/// Every endpoint's part of the document, in the order `endpoints` lists them.
pub fn operations() -> Vec<OperationDoc> {
    macro_rules! operations_of {
        ($($e:ty),*) => {
            vec![$(<$e as Documented>::operation()),*]
        };
    }
    for_each_endpoint!(operations_of)
}

/// The whole contract: [`base`] with every endpoint.
pub fn document() -> OpenApi {
    let mut doc = base();
    for op in operations() {
        add(&mut doc, op);
    }
    doc
}

/// Adds one endpoint's part to `doc` (as a router of them does).
pub fn add(doc: &mut OpenApi, op: OperationDoc) {
    doc.paths.merge(op.paths);
    let components = doc.components.get_or_insert_with(Default::default);
    components.schemas.extend(op.schemas);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{ROOM_HANDS, ROOM_PEOPLE, ROOM_TIME_SECS};

    fn json() -> serde_json::Value {
        serde_json::to_value(document()).unwrap()
    }

    #[test]
    fn every_endpoint_is_in_the_document_once() {
        let doc = json();
        let mut ops = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                ops += 1;
                assert!(
                    op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                    "{method} {path}"
                );
                assert!(op["responses"]["default"].is_object(), "{method} {path}");
            }
        }
        assert_eq!(ops, operations().len());
        assert_eq!(
            doc["paths"]["/v1/devices/{id}"]["delete"]["parameters"][0]["in"],
            "path"
        );
        assert_eq!(
            doc["paths"]["/v1/sync/pull"]["get"]["security"][0],
            serde_json::json!({ SESSION: [] })
        );
        assert_eq!(operation_id("a::b::JoinRoom"), "join_room");
    }

    #[test]
    fn schemas_say_what_the_server_takes() {
        let doc = json();
        let s = &doc["components"]["schemas"];
        assert_eq!(s["LoginRequest"]["additionalProperties"], false);
        let required = s["LoginRequest"]["required"].as_array().unwrap();
        assert_eq!(required.len(), 3, "{required:?}");
        let room = &s["RoomSettings"]["properties"];
        // The document's bounds are the checks' bounds.
        assert_eq!(room["people"]["minimum"], *ROOM_PEOPLE.start());
        assert_eq!(room["people"]["maximum"], *ROOM_PEOPLE.end());
        assert_eq!(room["hands"]["minimum"], *ROOM_HANDS.start());
        assert_eq!(room["hands"]["maximum"], *ROOM_HANDS.end());
        for f in ["first_discard_secs", "discard_secs", "claim_secs"] {
            assert_eq!(room[f]["minimum"], *ROOM_TIME_SECS.start(), "{f}");
            assert_eq!(room[f]["maximum"], *ROOM_TIME_SECS.end(), "{f}");
        }
        let rules = &doc["paths"]["/v1/admin/collusion"]["get"]["parameters"][0]["schema"];
        assert_eq!(rules["maxLength"], crate::admin::MAX_RULES_NAME);
        let codes = s["ErrorCode"]["enum"].as_array().unwrap();
        assert_eq!(codes.len(), crate::ErrorCode::KNOWN.len());
    }

    /// The server refuses unknown fields in every JSON body it takes, so every request body's
    /// object schema says `additionalProperties: false` (and so do the objects inside it).
    #[test]
    fn every_request_body_is_closed() {
        let doc = json();
        let schemas = &doc["components"]["schemas"];
        /// Every object schema reachable from `v`, references followed (each name once).
        fn objects(
            v: &serde_json::Value,
            schemas: &serde_json::Value,
            seen: &mut Vec<String>,
            out: &mut Vec<serde_json::Value>,
        ) {
            if let Some(r) = v["$ref"].as_str() {
                let name = r.rsplit('/').next().unwrap().to_string();
                if !seen.contains(&name) {
                    seen.push(name.clone());
                    objects(&schemas[&name], schemas, seen, out);
                }
                return;
            }
            if v.get("properties").is_some_and(|p| p.is_object()) {
                out.push(v.clone());
            }
            match v {
                serde_json::Value::Object(m) => {
                    m.values().for_each(|x| objects(x, schemas, seen, out))
                }
                serde_json::Value::Array(a) => {
                    a.iter().for_each(|x| objects(x, schemas, seen, out))
                }
                _ => {}
            }
        }
        let mut bodies = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let Some(schema) = op["requestBody"]["content"]["application/json"].get("schema")
                else {
                    continue;
                };
                bodies += 1;
                let mut found = Vec::new();
                objects(schema, schemas, &mut Vec::new(), &mut found);
                assert!(!found.is_empty(), "{method} {path}: no object in its body");
                for o in found {
                    assert_eq!(
                        o["additionalProperties"], false,
                        "{method} {path}: an object in its body takes unknown fields: {o}"
                    );
                }
            }
        }
        assert!(bodies >= 8, "only {bodies} request bodies found");
    }
}
