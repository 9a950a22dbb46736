//! The panel's exports that `eggcat panel update` saves before it writes an egg, and that
//! `eggcat panel restore` puts back: `{data_dir}/panel-backups/{panel}/{egg id}/{time}.json`,
//! where `{panel}` is the panel's host and port, and its path if it has one
//! (`panel.example.org_443`, `example.org_443_pelican`), and `{time}` the UTC
//! time of the save (`2026-11-29T01-30-00.123Z`: RFC 3339 with `-` for `:`, so that it sorts
//! and is a valid file name everywhere). Each file is the export exactly as the panel sent it.
//! Written whole or not at all (a temporary file renamed into place); never deleted by eggcat.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::PanelError;

/// The backups of one panel.
#[derive(Debug, Clone)]
pub struct Backups {
    dir: PathBuf,
}

/// One saved export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub egg: u64,
    /// As the file is named (`2026-11-29T01-30-00.123Z`).
    pub time: String,
    pub path: PathBuf,
}

impl Backups {
    /// The backups of the panel at `panel_url` under `data_dir`.
    pub fn new(data_dir: &Path, panel_url: &str) -> Backups {
        let rest = panel_url.split_once("://").map_or(panel_url, |(_, r)| r);
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let path = path.trim_matches('/');
        let default_port = if panel_url.starts_with("https:") {
            "443"
        } else {
            "80"
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !p.contains(']') => (h, p),
            _ => (authority, default_port),
        };
        // Two panels on one host under different paths keep their backups apart.
        let name = if path.is_empty() {
            format!("{host}_{port}")
        } else {
            format!("{host}_{port}_{path}")
        };
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Backups {
            dir: data_dir.join("panel-backups").join(name),
        }
    }

    /// The folder of this panel's backups.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves `export` (the bytes the panel sent) of egg `egg`; where it went.
    pub fn save(&self, egg: u64, export: &[u8]) -> Result<Saved, PanelError> {
        let dir = self.dir.join(egg.to_string());
        let fail = |e: std::io::Error| {
            PanelError::Config(format!(
                "cannot save the panel's export of egg {egg} in {} ({e}): nothing was written to the panel",
                dir.display()
            ))
        };
        std::fs::create_dir_all(&dir).map_err(fail)?;
        let mut time = humantime::format_rfc3339_millis(SystemTime::now())
            .to_string()
            .replace(':', "-");
        // Two saves of one egg in one millisecond keep both.
        while dir.join(format!("{time}.json")).exists() {
            time.push('+');
        }
        let path = dir.join(format!("{time}.json"));
        let tmp = dir.join(format!(".{time}.json.tmp"));
        std::fs::write(&tmp, export).map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)?;
        Ok(Saved { egg, time, path })
    }

    /// Every saved export, of egg `egg` or of all: by egg id, each egg's oldest first.
    pub fn list(&self, egg: Option<u64>) -> Result<Vec<Saved>, PanelError> {
        let mut out = Vec::new();
        let eggs: Vec<u64> = match egg {
            Some(id) => vec![id],
            None => match std::fs::read_dir(&self.dir) {
                Ok(entries) => entries
                    .flatten()
                    .filter_map(|e| e.file_name().to_str()?.parse().ok())
                    .collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => {
                    return Err(PanelError::Config(format!(
                        "cannot read {}: {e}",
                        self.dir.display()
                    )));
                }
            },
        };
        for id in eggs {
            let dir = self.dir.join(id.to_string());
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some(time) = name.strip_suffix(".json")
                    && !name.starts_with('.')
                {
                    out.push(Saved {
                        egg: id,
                        time: time.to_owned(),
                        path: entry.path(),
                    });
                }
            }
        }
        out.sort_by(|a, b| (a.egg, &a.time).cmp(&(b.egg, &b.time)));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_whole_files_per_panel_and_egg_and_lists_them_in_time_order() {
        let tmp = tempfile::tempdir().unwrap();
        let b = Backups::new(tmp.path(), "https://panel.example.org");
        assert!(b.dir().ends_with("panel-backups/panel.example.org_443"));
        let local = Backups::new(tmp.path(), "http://127.0.0.1:8080/");
        assert!(local.dir().ends_with("panel-backups/127.0.0.1_8080"));
        let under = Backups::new(tmp.path(), "https://example.org/panels/a/");
        assert!(
            under
                .dir()
                .ends_with("panel-backups/example.org_443_panels_a")
        );
        assert_ne!(
            under.dir(),
            Backups::new(tmp.path(), "https://example.org/panels/b").dir()
        );
        assert_eq!(b.list(None).unwrap(), []);
        let first = b.save(7, b"{\"a\":1}").unwrap();
        let second = b.save(7, b"{\"a\":2}").unwrap();
        let other = b.save(9, b"{}").unwrap();
        assert!(first.time < second.time, "{first:?} {second:?}");
        assert_eq!(std::fs::read(&second.path).unwrap(), b"{\"a\":2}");
        assert_eq!(b.list(Some(7)).unwrap(), [first.clone(), second.clone()]);
        assert_eq!(b.list(None).unwrap(), [first, second, other]);
        // Another panel's backups are its own.
        assert_eq!(local.list(None).unwrap(), []);
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(b.dir().join("7"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
