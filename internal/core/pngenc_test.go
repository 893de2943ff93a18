package core

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"testing"
)

// TestEncodePNG: what encodePNG writes decodes (image/png) to the very
// pixels it was given: opaque images of every kind (flat, noise, a
// gradient, one pixel, a sub-image), and those with transparency, which go
// through image/png.
func TestEncodePNG(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	mk := func(w, h int, f func(x, y int) color.RGBA) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.SetRGBA(x, y, f(x, y))
			}
		}
		return img
	}
	big := mk(300, 200, func(x, y int) color.RGBA { return color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 0xff} })
	cases := map[string]*image.RGBA{
		"flat": mk(640, 400, func(int, int) color.RGBA { return color.RGBA{0xf6, 0xf5, 0xf4, 0xff} }),
		"noise": mk(97, 61, func(int, int) color.RGBA {
			return color.RGBA{uint8(rng.Int()), uint8(rng.Int()), uint8(rng.Int()), 0xff}
		}),
		"gradient": big,
		"pixel":    mk(1, 1, func(int, int) color.RGBA { return color.RGBA{1, 2, 3, 0xff} }),
		"sub":      big.SubImage(image.Rect(17, 9, 250, 180)).(*image.RGBA),
		"alpha": mk(40, 30, func(x, y int) color.RGBA {
			if x < 10 {
				return color.RGBA{} // transparent
			}
			return color.RGBA{uint8(x), uint8(y), 0, 0xff}
		}),
	}
	for name, img := range cases {
		data, err := encodePNG(img)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: image/png cannot read it: %v", name, err)
		}
		if got.Bounds().Dx() != img.Rect.Dx() || got.Bounds().Dy() != img.Rect.Dy() {
			t.Fatalf("%s: %v, want the size of %v", name, got.Bounds(), img.Rect)
		}
		for y := range img.Rect.Dy() {
			for x := range img.Rect.Dx() {
				want := img.RGBAAt(img.Rect.Min.X+x, img.Rect.Min.Y+y)
				r, g, b, a := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
				if (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}) != want {
					t.Fatalf("%s: pixel %d,%d is %v %v %v %v, want %v", name, x, y, r>>8, g>>8, b>>8, a>>8, want)
				}
			}
		}
	}
}

// BenchmarkEncodePNG compares encodePNG with image/png at BestSpeed on a
// window-like image: flat areas, text-like noise in a few rows.
func BenchmarkEncodePNG(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	for y := range 800 {
		for x := range 1280 {
			c := color.RGBA{0xf6, 0xf5, 0xf4, 0xff}
			if y%40 < 14 && x%300 < 200 && rng.Intn(3) == 0 {
				c = color.RGBA{0x20, 0x20, 0x20, 0xff}
			}
			img.SetRGBA(x, y, c)
		}
	}
	b.Run("own", func(b *testing.B) {
		n := 0
		for range b.N {
			data, _ := encodePNG(img)
			n = len(data)
		}
		b.ReportMetric(float64(n), "bytes")
	})
	b.Run("image-png", func(b *testing.B) {
		n := 0
		for range b.N {
			var buf bytes.Buffer
			(&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
			n = buf.Len()
		}
		b.ReportMetric(float64(n), "bytes")
	})
}
