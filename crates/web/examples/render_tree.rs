//! Renders the web files into an `eggcat build --out` tree: `render_tree DIR BASE_URL`.
//!
//! For development and for bench/web.sh (which times it in release): reads every file under
//! DIR, calls `eggcat_web::render`, writes the result beside them, and reports the render time
//! on stderr.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| ".".into());
    let base = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let mut files = BTreeMap::new();
    read(Path::new(&dir), "", &mut files)?;
    let rounds = 5;
    let mut best = f64::MAX;
    let mut out = BTreeMap::new();
    for _ in 0..rounds {
        let start = Instant::now();
        out = eggcat_web::render(
            &files,
            &eggcat_web::SiteOptions { base_url: &base },
            &eggcat_web::Reuse::none(),
        );
        best = best.min(start.elapsed().as_secs_f64());
    }
    for (path, bytes) in &out {
        let full = Path::new(&dir).join(path);
        std::fs::create_dir_all(full.parent().expect("a file path has a parent"))?;
        std::fs::write(full, bytes)?;
    }
    eprintln!(
        "render_ms={:.1} files={} (best of {rounds})",
        best * 1000.0,
        out.len()
    );
    Ok(())
}

fn read(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type()?.is_dir() {
            read(&e.path(), &path, out)?;
        } else if path.starts_with("api/") {
            out.insert(path, std::fs::read(e.path())?);
        }
    }
    Ok(())
}
