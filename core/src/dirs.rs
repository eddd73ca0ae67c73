//! Where an application keeps its data: the XDG base-directory convention, which the
//! desktop command and the server follow (phones are handed their directory by the app).

use std::ffi::OsString;
use std::path::PathBuf;

/// `app`'s data directory: `$XDG_DATA_HOME/<app>` (an absolute `XDG_DATA_HOME` only, as
/// the spec says), else `$HOME/.local/share/<app>`; `None` when neither is set.
pub fn data_dir(app: &str) -> Option<PathBuf> {
    data_dir_from(app, |k| std::env::var_os(k))
}

/// [`data_dir`] with the environment read through `var`.
pub fn data_dir_from(app: &str, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let base = match var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        Some(x) => x,
        None => PathBuf::from(var("HOME").filter(|h| !h.is_empty())?).join(".local/share"),
    };
    Some(base.join(app))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.into())
    }

    #[test]
    fn the_data_directory_follows_xdg_then_home() {
        let dir = |pairs: &[(&str, &str)]| data_dir_from("app", env(pairs));
        let xdg_and_home = [("XDG_DATA_HOME", "/x/data"), ("HOME", "/home/a")];
        assert_eq!(dir(&xdg_and_home), Some(PathBuf::from("/x/data/app")));
        let home = Some(PathBuf::from("/home/a/.local/share/app"));
        assert_eq!(dir(&[("HOME", "/home/a")]), home);
        // A relative XDG_DATA_HOME is invalid by the spec and ignored.
        assert_eq!(dir(&[("XDG_DATA_HOME", "rel"), ("HOME", "/home/a")]), home);
        assert_eq!(dir(&[]), None);
        assert_eq!(dir(&[("XDG_DATA_HOME", ""), ("HOME", "")]), None);
    }
}
