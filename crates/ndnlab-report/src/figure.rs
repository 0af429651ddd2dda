//! A figure drawn twice from the same description: as SVG (inlined in the
//! report) and as PNG. Text is measured, and rasterised in the PNG, with DejaVu
//! Sans embedded in the binary, so figures look the same on a bare machine.

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

/// The font family every figure uses.
pub const FONT: &str = "sans-serif";

static FONTS: Once = Once::new();

/// Registers the embedded fonts with plotters (once per process).
pub fn register_fonts() {
    FONTS.call_once(|| {
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Something that can draw itself on any plotters backend.
pub trait Plot {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32) {
        (640, 420)
    }

    /// Draws the plot on a drawing area.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// A rendered figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// A file-name-safe identifier, unique within a report.
    pub id: String,
    /// One line telling what the figure shows.
    pub caption: String,
    pub svg: String,
    pub png: Vec<u8>,
}

/// A figure file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

impl Figure {
    /// Writes `DIR/<id>.svg` and `DIR/<id>.png` (creating `DIR`); returns the
    /// SVG's path.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, WriteError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| WriteError { path, error }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let svg = dir.join(format!("{}.svg", self.id));
        std::fs::write(&svg, &self.svg).map_err(io(&svg))?;
        let png = dir.join(format!("{}.png", self.id));
        std::fs::write(&png, &self.png).map_err(io(&png))?;
        Ok(svg)
    }
}

/// Formats a drawing error.
pub(crate) fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Renders a plot as SVG and PNG.
pub fn render(id: &str, caption: &str, plot: &impl Plot) -> Result<Figure, String> {
    register_fonts();
    let (w, h) = plot.size();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        plot.draw(&root)?;
        root.present().map_err(err)?;
    }
    let mut rgb = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        plot.draw(&root)?;
        root.present().map_err(err)?;
    }
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&rgb, w, h, image::ColorType::Rgb8)
        .map_err(err)?;
    Ok(Figure {
        id: id.to_string(),
        caption: caption.to_string(),
        svg,
        png,
    })
}

use image::ImageEncoder;
