//! PNG exports of the charts, rasterized with the bundled fonts only.

use super::{FONT_BOLD, FONT_FAMILY, FONT_REGULAR, SVG_FONT_FAMILIES};

/// Width of the PNG exports, px: a 600 px column at twice the density.
pub const PNG_WIDTH: u32 = 1200;

/// The bundled fonts for rasterizing, loaded once.
fn font_db() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static DB: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> =
        std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(FONT_REGULAR.to_vec());
        db.load_font_data(FONT_BOLD.to_vec());
        std::sync::Arc::new(db)
    })
    .clone()
}

/// `static/fonts.js`: the bundled fonts as data URLs, which `static/png-export.js` puts
/// in a chart's SVG before the browser rasterizes it (an SVG drawn as an image loads no
/// other file, and `file://` pages may not fetch one). Loaded only when a reader asks for a
/// PNG.
pub fn fonts_js() -> String {
    use base64::Engine as _;
    let url = |ttf: &[u8]| {
        format!(
            "data:font/ttf;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(ttf)
        )
    };
    format!(
        "// The bundled fonts (DejaVu Sans, see fonts/LICENSE.txt) for the PNG export.\n\
         window.roundupFonts = {{ family: \"{FONT_FAMILY}\", regular: \"{}\", bold: \"{}\" }};\n",
        url(FONT_REGULAR),
        url(FONT_BOLD)
    )
}

type ColourMap<V> = std::collections::HashMap<u32, V, crate::hash::BuildIntHasher>;

/// An opaque RGBA image as a palette of at most 256 colours and an index per pixel. A
/// chart has few colours (anti-aliasing adds some hundreds): the 256 most frequent are kept
/// exactly (ties by colour, so the result is deterministic), any others (a few pixels at
/// crossing lines) take the nearest of them.
fn indexed(rgba: &[u8]) -> (Vec<[u8; 3]>, Vec<u8>) {
    let pack = |p: &[u8]| u32::from_le_bytes([p[0], p[1], p[2], 0]);
    let unpack = |c: u32| {
        let b = c.to_le_bytes();
        [b[0], b[1], b[2]]
    };
    // Runs of one colour are long (background, bars): count a run at a time.
    let mut counts: ColourMap<u32> = ColourMap::default();
    let mut run = (u32::MAX, 0u32);
    for p in rgba.chunks_exact(4) {
        let c = pack(p);
        if c == run.0 {
            run.1 += 1;
        } else {
            if run.1 > 0 {
                *counts.entry(run.0).or_insert(0) += run.1;
            }
            run = (c, 1);
        }
    }
    if run.1 > 0 {
        *counts.entry(run.0).or_insert(0) += run.1;
    }
    let mut colours: Vec<(u32, u32)> = counts.into_iter().collect();
    colours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<[u8; 3]> = colours.iter().take(256).map(|c| unpack(c.0)).collect();
    let mut index: ColourMap<u8> = palette
        .iter()
        .enumerate()
        .map(|(i, c)| (pack(&[c[0], c[1], c[2]]), i as u8))
        .collect();
    let nearest = |c: [u8; 3]| -> u8 {
        let d = |p: &[u8; 3]| -> u32 {
            (0..3)
                .map(|k| (p[k] as i32 - c[k] as i32).pow(2) as u32)
                .sum()
        };
        let mut best = 0;
        for (i, p) in palette.iter().enumerate() {
            if d(p) < d(&palette[best]) {
                best = i;
            }
        }
        best as u8
    };
    let mut indices = Vec::with_capacity(rgba.len() / 4);
    let mut last = (u32::MAX, 0u8);
    for p in rgba.chunks_exact(4) {
        let c = pack(p);
        if c != last.0 {
            last = (c, *index.entry(c).or_insert_with(|| nearest(unpack(c))));
        }
        indices.push(last.1);
    }
    (palette, indices)
}

/// Rasterizes a chart's SVG to PNG, [`PNG_WIDTH`] pixels wide, with the bundled fonts only
/// (never the machine's), so the same SVG gives the same PNG; opaque, with a palette
/// (see `indexed`), which keeps a chart's PNG small and quick to compress.
pub fn to_png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let opt = usvg::Options {
        font_family: "DejaVu Sans".into(),
        fontdb: font_db(),
        ..usvg::Options::default()
    };
    let svg = svg.replace(
        &format!("font-family=\"{SVG_FONT_FAMILIES}\""),
        "font-family=\"DejaVu Sans\"",
    );
    let tree = usvg::Tree::from_str(&svg, &opt).map_err(|e| format!("chart SVG: {e}"))?;
    let size = tree.size();
    let scale = PNG_WIDTH as f32 / size.width();
    let h = ((size.height() * scale).ceil() as u32).max(1);
    let mut pixmap = tiny_skia::Pixmap::new(PNG_WIDTH, h)
        .ok_or_else(|| format!("chart of {PNG_WIDTH}×{h} px is too large"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let (palette, indices) = indexed(pixmap.data());
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, PNG_WIDTH, h);
    enc.set_color(png::ColorType::Indexed);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_palette(palette.concat());
    enc.set_compression(png::Compression::Default);
    enc.set_filter(png::FilterType::NoFilter);
    let mut w = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
    w.write_image_data(&indices)
        .map_err(|e| format!("PNG: {e}"))?;
    w.finish().map_err(|e| format!("PNG: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::chart::lines::tests::cdf;

    #[test]
    fn png_is_publication_width_and_deterministic() {
        let svg = cdf().to_svg().unwrap();
        let png = to_png(&svg).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!(w, PNG_WIDTH);
        assert!(h > 600 && h < 1000, "{h}");
        assert_eq!(png, to_png(&svg).unwrap());
        // Text is drawn with the bundled font: a chart without text differs from one with.
        let blank = to_png(&svg.replace("4KB Random Write", "")).unwrap();
        assert_ne!(png, blank);
    }
}
