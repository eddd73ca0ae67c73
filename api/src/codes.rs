//! String codes that are a contract: written as snake_case strings on the wire, known to both
//! sides as enums. A code this build does not know (a newer peer's) reads as `Other` with its
//! text kept, so an older client still shows it and never fails to read an answer.

/// An enum of wire strings: its variants with their texts, `Other(String)` for any other,
/// `as_str`/`parse`, serde as a plain string, and (feature `openapi`) a string schema listing
/// the known texts.
macro_rules! string_codes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A code this build does not know (sent by a newer peer), as it was written.
            Other(String),
        }

        impl $name {
            /// Every code this build knows.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),*];

            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )*
                    $name::Other(s) => s,
                }
            }

            /// The code written `s` (`Other` when this build does not know it).
            pub fn parse(s: &str) -> $name {
                match s {
                    $( $text => $name::$variant, )*
                    other => $name::Other(other.to_string()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Ok($name::parse(&s))
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{ObjectBuilder, Type};
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some([$($text),*]))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}
    };
}

pub(crate) use string_codes;

#[cfg(test)]
mod tests {
    string_codes! {
        enum Colour {
            Red = "red",
            DeepBlue = "deep_blue",
        }
    }

    #[test]
    fn codes_are_plain_strings_and_unknown_ones_are_kept() {
        assert_eq!(
            serde_json::to_string(&Colour::DeepBlue).unwrap(),
            "\"deep_blue\""
        );
        let read: Vec<Colour> = serde_json::from_str(r#"["red","mauve"]"#).unwrap();
        assert_eq!(read, [Colour::Red, Colour::Other("mauve".into())]);
        assert_eq!(serde_json::to_string(&read[1]).unwrap(), "\"mauve\"");
        assert_eq!(Colour::KNOWN.len(), 2);
        assert!(serde_json::from_str::<Colour>("3").is_err());
    }
}
