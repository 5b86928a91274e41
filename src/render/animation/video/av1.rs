//! WebM of AV1: rav1e (pure Rust) encodes each screen once, in order (no frames held back
//! for reordering), and the Matroska writer stamps each with its time; the segment's duration
//! is the animation's, so the last screen lasts to its end.

use rav1e::prelude::{
    ChromaSampling, Config, Context, EncoderConfig, EncoderStatus, FrameType, Rational,
};
use rusty_h264_common::YuvFrame;
use webm_iterable::WebmWriter;
use webm_iterable::matroska_spec::{Master, MatroskaSpec as M};

use super::{KEY_FRAME_SECONDS, Stream};
use crate::render::RenderError;

/// rav1e's fastest preset: seconds, not minutes, for a terminal recording.
const SPEED: u8 = 10;
/// rav1e's quantiser (0–255): sharp text at about the size of the MP4.
const QUANTIZER: usize = 80;
/// The longest stretch one Matroska cluster covers (its blocks' times are 16-bit offsets).
const CLUSTER_MS: u64 = 30_000;

/// One encoded screen: its data, whether a key frame, and its grid index.
struct Packet {
    data: Vec<u8>,
    key: bool,
    index: u64,
}

pub(super) struct Av1 {
    context: Context<u8>,
    size: (usize, usize),
    fps: u32,
    /// The grid index of each screen sent, in order (rav1e numbers them from 0).
    indices: Vec<u64>,
    packets: Vec<Packet>,
}

impl Av1 {
    pub(super) fn new(size: (usize, usize), fps: u32) -> Result<Av1, RenderError> {
        let mut encoder = EncoderConfig::with_speed_preset(SPEED);
        encoder.width = size.0;
        encoder.height = size.1;
        encoder.time_base = Rational::new(1, u64::from(fps));
        encoder.bit_depth = 8;
        encoder.chroma_sampling = ChromaSampling::Cs420;
        encoder.quantizer = QUANTIZER;
        encoder.min_key_frame_interval = 1;
        encoder.max_key_frame_interval = u64::from(fps * KEY_FRAME_SECONDS);
        encoder.low_latency = true;
        let context = Config::new()
            .with_encoder_config(encoder)
            .new_context()
            .map_err(|e| RenderError::new(format!("the AV1 encoder refused: {e}")))?;
        Ok(Av1 {
            context,
            size,
            fps,
            indices: Vec::new(),
            packets: Vec::new(),
        })
    }

    /// Takes every packet the encoder has ready.
    fn drain(&mut self) -> Result<(), RenderError> {
        loop {
            match self.context.receive_packet() {
                Ok(packet) => {
                    let index = usize::try_from(packet.input_frameno)
                        .ok()
                        .and_then(|n| self.indices.get(n))
                        .copied()
                        .unwrap_or_default();
                    self.packets.push(Packet {
                        data: packet.data,
                        key: packet.frame_type == FrameType::KEY,
                        index,
                    });
                }
                Err(EncoderStatus::Encoded) => {}
                Err(EncoderStatus::NeedMoreData | EncoderStatus::LimitReached) => return Ok(()),
                Err(e) => return Err(RenderError::new(format!("AV1: {e}"))),
            }
        }
    }

    /// Milliseconds from the start at grid index `index`.
    fn ms(&self, index: u64) -> u64 {
        index * 1000 / u64::from(self.fps)
    }
}

impl Stream for Av1 {
    fn frame(&mut self, frame: &YuvFrame, index: u64, _lasts: u64) -> Result<(), RenderError> {
        let mut picture = self.context.new_frame();
        let (width, _) = self.size;
        picture.planes[0].copy_from_raw_u8(&frame.y, width, 1);
        picture.planes[1].copy_from_raw_u8(&frame.u, width / 2, 1);
        picture.planes[2].copy_from_raw_u8(&frame.v, width / 2, 1);
        self.indices.push(index);
        self.context
            .send_frame(picture)
            .map_err(|e| RenderError::new(format!("AV1: {e}")))?;
        self.drain()
    }

    fn finish(mut self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError> {
        self.context.flush();
        self.drain()?;
        let fail =
            |e: webm_iterable::errors::TagWriterError| RenderError::new(format!("WebM: {e}"));
        let mut out = WebmWriter::new(Vec::new());
        out.write(&M::Ebml(Master::Full(vec![
            M::EbmlVersion(1),
            M::EbmlReadVersion(1),
            M::EbmlMaxIdLength(4),
            M::EbmlMaxSizeLength(8),
            M::DocType("webm".into()),
            M::DocTypeVersion(4),
            M::DocTypeReadVersion(2),
        ])))
        .map_err(fail)?;
        out.write(&M::Segment(Master::Start)).map_err(fail)?;
        out.write(&M::Info(Master::Full(vec![
            M::TimestampScale(1_000_000),
            M::MuxingApp("shotty".into()),
            M::WritingApp("shotty".into()),
            M::Duration(self.ms(end) as f64),
        ])))
        .map_err(fail)?;
        let (width, height) = self.size;
        out.write(&M::Tracks(Master::Full(vec![M::TrackEntry(Master::Full(
            vec![
                M::TrackNumber(1),
                M::TrackUID(1),
                M::TrackType(1),
                M::FlagLacing(0),
                M::CodecID("V_AV1".into()),
                M::CodecPrivate(self.context.container_sequence_header()),
                M::Video(Master::Full(vec![
                    M::PixelWidth(width as u64),
                    M::PixelHeight(height as u64),
                ])),
            ],
        ))])))
        .map_err(fail)?;
        let mut cluster: Option<u64> = None;
        for packet in &self.packets {
            let at = self.ms(packet.index);
            let start = match cluster {
                Some(start) if !packet.key && at - start <= CLUSTER_MS => start,
                _ => {
                    if cluster.is_some() {
                        out.write(&M::Cluster(Master::End)).map_err(fail)?;
                    }
                    out.write(&M::Cluster(Master::Start)).map_err(fail)?;
                    out.write(&M::Timestamp(at)).map_err(fail)?;
                    cluster = Some(at);
                    at
                }
            };
            // A SimpleBlock: track 1 (a one-byte number), the time from the cluster's, flags.
            let offset = i16::try_from(at - start).unwrap_or(i16::MAX);
            let mut block = Vec::with_capacity(packet.data.len() + 4);
            block.push(0x81);
            block.extend_from_slice(&offset.to_be_bytes());
            block.push(if packet.key { 0x80 } else { 0 });
            block.extend_from_slice(&packet.data);
            out.write(&M::SimpleBlock(block)).map_err(fail)?;
        }
        if cluster.is_some() {
            out.write(&M::Cluster(Master::End)).map_err(fail)?;
        }
        out.write(&M::Segment(Master::End)).map_err(fail)?;
        out.into_inner().map_err(fail)
    }
}
