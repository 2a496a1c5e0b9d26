//! `roundup serve`: the static site over HTTP on localhost, for a quick look. One request
//! at a time, GET and HEAD only, nothing outside `site/`.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The content type of a site file.
fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ttf" => "font/ttf",
        "txt" | "md" => "text/plain; charset=utf-8",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// The file under `root` a request path names, if it is one (no `..`, no absolute parts).
pub fn resolve(root: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let mut out = root.to_path_buf();
    for c in Path::new(path.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    out.is_file().then_some(out)
}

fn respond(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, url) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let (status, kind, body) = match (method, resolve(root, url)) {
        ("GET" | "HEAD", Some(file)) => ("200 OK", content_type(&file), std::fs::read(&file)?),
        ("GET" | "HEAD", None) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            b"not found\n".to_vec(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            b"GET only\n".to_vec(),
        ),
    };
    write!(stream, "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

/// Serves `root` on 127.0.0.1:`port` (0 picks a free port); `ready` gets the address once
/// listening. Runs until the process ends.
pub fn serve(root: &Path, port: u16, ready: impl FnOnce(&str)) -> Result<()> {
    let at = format!("127.0.0.1:{port}");
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| Error::io(&at, e))?;
    let addr = listener.local_addr().map_err(|e| Error::io(&at, e))?;
    ready(&format!("http://{addr}/"));
    for stream in listener.incoming().flatten() {
        // A client that goes away is its own problem, not the server's.
        let _ = respond(stream, root);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_only_inside_the_site() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("suites")).unwrap();
        std::fs::write(dir.path().join("index.html"), "i").unwrap();
        std::fs::write(dir.path().join("suites/a.html"), "a").unwrap();
        assert_eq!(
            resolve(dir.path(), "/"),
            Some(dir.path().join("index.html"))
        );
        assert_eq!(
            resolve(dir.path(), "/suites/a.html#x"),
            Some(dir.path().join("suites/a.html"))
        );
        assert_eq!(resolve(dir.path(), "/../etc/passwd"), None);
        assert_eq!(resolve(dir.path(), "/nope.html"), None);
    }
}
