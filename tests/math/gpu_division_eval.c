/*
 * gpu_division_eval.c - compiled twice into math-gpu-division: as it is
 * (host code divides) and with DUO_MATH_GPU_DIVISION (host code takes the
 * GPU's steps in duo_m_div_rn_, math_core.h).  EVAL_F and EVAL_D name
 * each copy's pair of functions.
 */
#include "math_funcs.h"

float EVAL_F(int f, float x, float y);
double EVAL_D(int f, double x, double y);

float EVAL_F(int f, float x, float y)
{
    return duo_math_eval(f, x, y);
}

double EVAL_D(int f, double x, double y)
{
    return duo_math_eval_d(f, x, y);
}
