//! Declared pass options: one declaration gives parsing, defaults, canonical text and a
//! description.

/// Describes one option (for `--help`, docs and Python).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionInfo {
    /// Text name (`num-warps`).
    pub name: &'static str,
    /// Value type (`u32`, `bool`, `string`).
    pub ty: &'static str,
    /// Default, as text.
    pub default: String,
    /// One-line help (the field's doc comment).
    pub help: String,
}

/// A value an option can hold.
pub trait OptionValue: Sized {
    /// Type name for descriptions.
    const TYPE_NAME: &'static str;
    /// Parses option text.
    fn parse_option(text: &str) -> Result<Self, String>;
    /// Canonical text.
    fn format_option(&self) -> String;
}

impl OptionValue for u32 {
    const TYPE_NAME: &'static str = "u32";
    fn parse_option(text: &str) -> Result<Self, String> {
        text.parse().map_err(|_| format!("expected an unsigned integer, got '{text}'"))
    }
    fn format_option(&self) -> String {
        self.to_string()
    }
}

impl OptionValue for i64 {
    const TYPE_NAME: &'static str = "i64";
    fn parse_option(text: &str) -> Result<Self, String> {
        text.parse().map_err(|_| format!("expected an integer, got '{text}'"))
    }
    fn format_option(&self) -> String {
        self.to_string()
    }
}

impl OptionValue for bool {
    const TYPE_NAME: &'static str = "bool";
    fn parse_option(text: &str) -> Result<Self, String> {
        match text {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(format!("expected true or false, got '{text}'")),
        }
    }
    fn format_option(&self) -> String {
        self.to_string()
    }
}

impl OptionValue for String {
    const TYPE_NAME: &'static str = "string";
    fn parse_option(text: &str) -> Result<Self, String> {
        Ok(text.to_string())
    }
    fn format_option(&self) -> String {
        self.clone()
    }
}

/// Declares a pass-options struct.
///
/// ```
/// tileir_pass::pass_options! {
///     /// Options of an example pass.
///     pub struct ExampleOptions {
///         /// Warps per CTA.
///         num_warps("num-warps"): u32 = 4,
///     }
/// }
/// let o = ExampleOptions::parse(&[("num-warps".into(), "8".into())]).unwrap();
/// assert_eq!(o.num_warps, 8);
/// assert_eq!(o.to_text(), "num-warps=8");
/// assert!(ExampleOptions::parse(&[("num-warp".into(), "8".into())]).unwrap_err().contains("did you mean 'num-warps'"));
/// ```
#[macro_export]
macro_rules! pass_options {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[doc = $doc:literal])* $field:ident($text:literal): $ty:ty = $default:expr),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name { $($(#[doc = $doc])* pub $field: $ty),* }
        impl Default for $name {
            fn default() -> Self { $name { $($field: $default),* } }
        }
        impl $name {
            /// Option names in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),*];
            /// Parses `key=value` pairs, starting from the defaults.
            pub fn parse(pairs: &[(String, String)]) -> Result<Self, String> {
                #[allow(unused_mut)]
                let mut out = Self::default();
                for (key, value) in pairs {
                    match key.as_str() {
                        $($text => {
                            out.$field = <$ty as $crate::OptionValue>::parse_option(value)
                                .map_err(|e| format!("option '{}': {e}", $text))?;
                        })*
                        _ => {
                            let mut msg = format!("unknown option '{key}'");
                            if let Some(s) = ::tileir_ir::op::suggest(key, Self::NAMES) {
                                msg.push_str(&format!("; did you mean '{s}'?"));
                            }
                            if Self::NAMES.is_empty() {
                                msg.push_str(" (this pass takes no options)");
                            } else {
                                msg.push_str(&format!(" (options: {})", Self::NAMES.join(", ")));
                            }
                            return Err(msg);
                        }
                    }
                }
                Ok(out)
            }
            /// Canonical text: every option, in declaration order.
            pub fn to_text(&self) -> String {
                #[allow(unused_mut)]
                let mut parts: Vec<String> = Vec::new();
                $(parts.push(format!("{}={}", $text, $crate::quote_option_value(&$crate::OptionValue::format_option(&self.$field))));)*
                parts.join(" ")
            }
            /// Describes every option.
            pub fn describe() -> Vec<$crate::OptionInfo> {
                #[allow(unused_variables)]
                let d = Self::default();
                vec![$($crate::OptionInfo {
                    name: $text,
                    ty: <$ty as $crate::OptionValue>::TYPE_NAME,
                    default: $crate::OptionValue::format_option(&d.$field),
                    help: concat!($($doc),*).trim().to_string(),
                }),*]
            }
        }
    };
}
