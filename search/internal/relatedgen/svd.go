package main

import (
	"math"
	"math/rand/v2"
)

// embed reduces the sparse PPMI rows (a symmetric-ish n×n matrix M) to
// dense vectors of k dimensions by a truncated SVD, M ≈ U Σ Vᵀ, each word
// being its row of U Σ^½ normalised to unit length: words that share no
// context but whose contexts are alike come close, which sparse rows of a
// small corpus cannot show. The SVD is randomised (Halko, Martinsson and
// Tropp, 2011) with a fixed seed, so that it gives the same vectors every
// run.
func embed(rows [][]cell, k int) [][]float64 {
	n := len(rows)
	l := k + 10 // oversampling
	rng := rand.New(rand.NewPCG(1, 2))
	omega := dense(n, l)
	for i := range omega {
		for j := range omega[i] {
			omega[i][j] = rng.NormFloat64()
		}
	}
	q := orthonormal(mul(rows, omega))
	for range 3 { // power iterations sharpen the spectrum
		q = orthonormal(mul(rows, orthonormal(mulT(rows, q))))
	}
	// B = Qᵀ M is l×n; B Bᵀ = Qᵀ M Mᵀ Q, whose eigenvectors W give U = Q W.
	bt := mulT(rows, q) // n×l: Mᵀ Q = Bᵀ
	bbt := dense(l, l)
	for _, r := range bt {
		for i := range l {
			for j := range l {
				bbt[i][j] += r[i] * r[j]
			}
		}
	}
	vals, vecs := jacobi(bbt)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	// Largest eigenvalues first (a simple stable sort of l values).
	for i := 1; i < l; i++ {
		for j := i; j > 0 && vals[order[j]] > vals[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	out := dense(n, k)
	for a := range n {
		norm := 0.0
		for d := range k {
			c := order[d]
			s := 0.0
			for i := range l {
				s += q[a][i] * vecs[i][c]
			}
			// Singular value σ = √λ; the row is weighted by σ^½ = λ^¼.
			s *= math.Pow(max(vals[c], 0), 0.25)
			out[a][d] = s
			norm += s * s
		}
		if norm = math.Sqrt(norm); norm > 0 {
			for d := range k {
				out[a][d] /= norm
			}
		}
	}
	return out
}

func dense(n, m int) [][]float64 {
	backing := make([]float64, n*m)
	x := make([][]float64, n)
	for i := range x {
		x[i] = backing[i*m : (i+1)*m]
	}
	return x
}

// mul is M X for sparse M (rows) and dense X.
func mul(rows [][]cell, x [][]float64) [][]float64 {
	y := dense(len(rows), len(x[0]))
	for a, r := range rows {
		for _, c := range r {
			for j, v := range x[c.id] {
				y[a][j] += c.v * v
			}
		}
	}
	return y
}

// mulT is Mᵀ X for sparse M (rows) and dense X.
func mulT(rows [][]cell, x [][]float64) [][]float64 {
	y := dense(len(rows), len(x[0]))
	for a, r := range rows {
		for _, c := range r {
			for j, v := range x[a] {
				y[c.id][j] += c.v * v
			}
		}
	}
	return y
}

// orthonormal makes the columns of x orthonormal (modified Gram-Schmidt),
// in place.
func orthonormal(x [][]float64) [][]float64 {
	m := len(x[0])
	for j := range m {
		for p := range j {
			dot := 0.0
			for i := range x {
				dot += x[i][j] * x[i][p]
			}
			for i := range x {
				x[i][j] -= dot * x[i][p]
			}
		}
		norm := 0.0
		for i := range x {
			norm += x[i][j] * x[i][j]
		}
		norm = math.Sqrt(norm)
		for i := range x {
			if norm > 0 {
				x[i][j] /= norm
			}
		}
	}
	return x
}

// jacobi returns the eigenvalues and eigenvectors (columns) of the
// symmetric matrix s, by cyclic Jacobi rotations.
func jacobi(s [][]float64) ([]float64, [][]float64) {
	n := len(s)
	a := dense(n, n)
	v := dense(n, n)
	for i := range n {
		copy(a[i], s[i])
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if math.Abs(a[p][q]) < 1e-300 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				sn := t * c
				for k := range n {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-sn*akq, sn*akp+c*akq
				}
				for k := range n {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-sn*aqk, sn*apk+c*aqk
				}
				for k := range n {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-sn*vkq, sn*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = a[i][i]
	}
	return vals, v
}
