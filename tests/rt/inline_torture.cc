// SPDX-License-Identifier: MIT
// The C++ side of inline_torture.c: virtual calls, templates, lambdas,
// std::function, exceptions thrown through instrumented frames, threads.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <functional>
#include <algorithm>
struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};
struct Sq : Shape {
	double s;
	explicit Sq(double x) : s(x)
	{
	}
	double area() const override
	{
		return s * s;
	}
};
struct Ci : Shape {
	double r;
	explicit Ci(double x) : r(x)
	{
	}
	double area() const override
	{
		return 3 * r * r;
	}
};
template <typename T> T accumulate_if(const std::vector<T> &v, std::function<bool(T)> f)
{
	T s{};
	for (auto &x : v)
		if (f(x))
			s += x;
	return s;
}
static int thrower(int n)
{
	if (n > 5)
		throw std::out_of_range("n=" + std::to_string(n));
	return n * 2;
}
int main()
{
	std::map<std::string, int> m;
	for (int i = 0; i < 100; i++)
		m["k" + std::to_string(i % 17)] += i;
	std::vector<std::unique_ptr<Shape>> shapes;
	for (int i = 1; i < 10; i++) {
		if (i % 2)
			shapes.emplace_back(new Sq(i));
		else
			shapes.emplace_back(new Ci(i));
	}
	double a = 0;
	for (auto &s : shapes)
		a += s->area();
	std::vector<int> v(1000);
	for (int i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000;
	std::sort(v.begin(), v.end());
	int odd = accumulate_if<int>(v, [](int x) { return x & 1; });
	int caught = 0;
	for (int i = 0; i < 10; i++) {
		try {
			caught += thrower(i);
		} catch (const std::out_of_range &e) {
			caught += 1000;
		}
	}
	std::vector<std::thread> ts;
	std::vector<long> res(3);
	for (int t = 0; t < 3; t++)
		ts.emplace_back([&res, t] {
			long s = 0;
			for (int i = 0; i < 5000; i++)
				s += i * t;
			res[t] = s;
		});
	for (auto &t : ts)
		t.join();
	std::printf("map %zu %d area %.0f odd %d caught %d threads %ld\n", m.size(), m["k3"], a, odd, caught, res[2]);
	return 0;
}
